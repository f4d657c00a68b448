import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AdminServices, guardAdminRequest, handleAdmin } from './admin.js';
import { VirtualClock } from './clock.js';
import { ApiProblem } from './errors.js';
import { isLoopbackAddress } from '../core/net.js';
import { parseTarget, readJsonBody, sendJson, sendProblem } from './http.js';
import { type Faults, NO_FAULTS } from './faults.js';
import { createSeededState } from './fixtures.js';
import { IdempotencyStore } from './idempotency.js';
import { imageHandler } from './images.js';
import { createApiPipeline } from './pipeline.js';
import { SeededRandom } from './random.js';
import { RateLimiter } from './ratelimit.js';
import { createResponseCheck, isOpenApiRequest, serveOpenApi } from './routes/openapi.js';
import type { SandboxState } from './store.js';
import { createWeb } from './web/index.js';
import { WebhookQueue } from './webhooks.js';

export interface SandboxOptions {
  seed?: number;
  /** keys and webhook secrets from the OS's random source instead of the seed (`svc sandbox` without --seed) */
  randomKeys?: boolean;
  approvalRequired?: boolean;
  rateLimitPerMinute?: number;
  faults?: Faults;
  /** One line per webhook attempt, per request (unless logRequests is false) and per failure. */
  log?: (line: string) => void;
  /** A line per request in `log` (default true); off, a request costs no logging at all. */
  logRequests?: boolean;
  clock?: VirtualClock;
  /** Milliseconds of a monotonic real-time clock for the rate limits (tests inject one; default performance.now). */
  rateLimitClock?: () => number;
  /**
   * Check every /v1 request and answer against the API description (openapi/openapi.yaml) and
   * record each disagreement in `responseViolations` (and the log). Default off (`svc sandbox`
   * turns it on with SVC_SANDBOX_VALIDATE_RESPONSES=1).
   */
  validateResponses?: boolean;
}

export interface SandboxKeyInfo {
  name: string;
  apiKey: string;
  scopes: string[];
  brandIds: string[];
  webhookUrl: string | null;
  webhookSecret: string;
}

/** The ready line of `svc sandbox`. */
export interface SandboxInfo {
  baseUrl: string;
  adminUrl: string;
  keys: SandboxKeyInfo[];
}

export interface Sandbox {
  /** The node:http request listener; the sandbox works without listening (see server.ts). */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  state: SandboxState;
  clock: VirtualClock;
  webhooks: WebhookQueue;
  faults: Faults;
  /** Answers that disagreed with the API description (only when validateResponses is on). */
  responseViolations: string[];
  info(origin: string): SandboxInfo;
  /** Stops timers and webhook attempts in flight. */
  close(): void;
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const seed = options.seed ?? 1;
  const clock = options.clock ?? new VirtualClock();
  const log = options.log ?? (() => undefined);
  const state = createSeededState(clock, {
    seed,
    randomKeys: options.randomKeys ?? false,
    approvalRequired: options.approvalRequired ?? false,
    rateLimitPerMinute: options.rateLimitPerMinute ?? 3000,
  });
  const webhooks = new WebhookQueue(state, log);
  const faultRandom = new SeededRandom(seed ^ 0x5eed);
  const services = {
    state,
    webhooks,
    limiter: new RateLimiter(state.tenant.rateLimitPerMinute, options.rateLimitClock),
    idempotency: new IdempotencyStore(clock),
    faults: { ...NO_FAULTS, ...options.faults },
    faultRandom: () => faultRandom.next(),
  };
  const responseViolations: string[] = [];
  const dispatch = createDispatch(services, {
    log,
    images: imageHandler(options.rateLimitClock),
    responseCheck: options.validateResponses ? createResponseCheck(responseViolations, log) : undefined,
  });

  // Due expiries and retries also run while nobody calls (the virtual clock moves with real time).
  const timer = setInterval(() => {
    state.sweep();
    services.idempotency.prune();
    void webhooks.runDue();
  }, 1000);
  timer.unref();

  const answer = (res: ServerResponse, err: unknown): void => {
    if (res.headersSent || res.destroyed) return;
    if (err instanceof ApiProblem) return sendProblem(res, err);
    log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    sendProblem(res, new ApiProblem(500, 'internal_error', 'The sandbox failed to handle the request.'));
  };
  const logRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    res.once('close', () => {
      const outcome = res.writableFinished ? String(res.statusCode) : 'connection closed';
      log(`${req.method} ${req.url} ${outcome} ${(performance.now() - started).toFixed(1)}ms`);
    });
  };
  const logRequests = options.log !== undefined && options.logRequests !== false;

  return {
    handler: (req, res) => {
      if (logRequests) logRequest(req, res);
      try {
        dispatch(req, res)?.catch((err: unknown) => answer(res, err));
      } catch (err) {
        answer(res, err);
      }
    },
    state,
    clock,
    webhooks,
    faults: services.faults,
    responseViolations,
    info: (origin) => sandboxInfo(state, origin),
    close: () => {
      clearInterval(timer);
      webhooks.close();
    },
  };
}

function sandboxInfo(state: SandboxState, origin: string): SandboxInfo {
  return {
    baseUrl: `${origin}/v1`,
    adminUrl: `${origin}/_sandbox`,
    keys: state.keys.map(({ name, apiKey, scopes, brandIds, webhookUrl, webhookSecret }) => ({
      name,
      apiKey,
      scopes: [...scopes],
      brandIds: [...brandIds],
      webhookUrl,
      webhookSecret,
    })),
  };
}

interface DispatchParts {
  log: (line: string) => void;
  images: ReturnType<typeof imageHandler>;
  responseCheck: ReturnType<typeof createResponseCheck> | undefined;
}

/** Sends each request to its part: the description, /v1, the workspace and admin API under /_sandbox, the gift site, images. */
function createDispatch(services: AdminServices & Parameters<typeof createApiPipeline>[0], parts: DispatchParts) {
  const { state } = services;
  const handleApi = createApiPipeline(services);
  const web = createWeb(services);
  // Pages for a browser and the workspace's forms (web/); JSON for everything else.
  const handleTeam = async (req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> => {
    if (await web.workspace(req, res, path, query)) return;
    const result = await handleAdmin(services, req.method ?? 'GET', path, () => readJsonBody(req));
    sendJson(res, result.status, result.json);
  };
  return (req: IncomingMessage, res: ServerResponse): Promise<void> | void => {
    const { path, query } = parseTarget(req.url ?? '/');
    const origin = `http://${req.headers.host ?? 'localhost'}`;
    // The API description, without a key.
    if (isOpenApiRequest(req.method, path)) return serveOpenApi(req, res, origin);
    if (path === '/v1' || path.startsWith('/v1/')) {
      parts.responseCheck?.watch(req, res, path.slice('/v1'.length));
      return handleApi(req, res, { path: path.slice('/v1'.length), query }, origin);
    }
    if (path === '/_sandbox' || path.startsWith('/_sandbox/')) {
      if (!isLoopbackAddress(req.socket.remoteAddress)) throw new ApiProblem(403, 'forbidden', 'The admin API answers loopback clients only.');
      guardAdminRequest(req.headers);
      // The team acts on the state as it is now: expiries that fell due are applied first.
      state.sweep();
      return handleTeam(req, res, path.slice('/_sandbox'.length), query);
    }
    if (path.startsWith('/claim/')) {
      // The gift site of each link's claimUrl, guarded like the admin API (no DNS rebinding, no cross-site use).
      guardAdminRequest(req.headers);
      state.sweep();
      return web.claim(req, res, path, query);
    }
    if (path.startsWith('/images/')) return parts.images(req, res, path);
    throw new ApiProblem(404, 'not_found', `There is no ${path}; the API is under /v1 and the admin API under /_sandbox.`);
  };
}
