import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AdminServices, guardAdminRequest, handleAdmin } from './admin.js';
import { VirtualClock } from './clock.js';
import { ApiProblem, rateLimited } from './errors.js';
import { acceptsJson, isLoopback, readJsonBody, sendJson, sendProblem } from './http.js';
import { type Faults, NO_FAULTS, answerFaultBeforeCall, decideFault } from './faults.js';
import { createSeededState } from './fixtures.js';
import { IdempotencyStore, readIdempotencyKey, requestFingerprint } from './idempotency.js';
import type { ApiKeyRecord } from './models.js';
import { SeededRandom } from './random.js';
import { RateLimiter } from './ratelimit.js';
import { apiRoutes } from './routes/index.js';
import { createResponseCheck, isOpenApiRequest, serveOpenApi } from './routes/openapi.js';
import { type ApiResult, type ApiRoute, Router } from './router.js';
import type { SandboxState } from './store.js';
import { WebhookQueue } from './webhooks.js';

const IMAGE_REQUESTS_PER_MINUTE = 600;
/** A 1×1 PNG: every image address of the sandbox opens, without a key. */
const PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

export interface SandboxOptions {
  seed?: number;
  /** keys and webhook secrets from the OS's random source instead of the seed (`svc sandbox` without --seed) */
  randomKeys?: boolean;
  approvalRequired?: boolean;
  rateLimitPerMinute?: number;
  faults?: Faults;
  /** One line per request and per webhook attempt. */
  log?: (line: string) => void;
  clock?: VirtualClock;
  /** Milliseconds of a monotonic real-time clock for the rate limits (tests inject one; default performance.now). */
  rateLimitClock?: () => number;
  /**
   * Check every /v1 answer against the API description (openapi/openapi.yaml) and record each
   * disagreement in `responseViolations` (and the log). Default: env SVC_SANDBOX_VALIDATE_RESPONSES=1.
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
  const limiter = new RateLimiter(state.tenant.rateLimitPerMinute, options.rateLimitClock);
  // Images have their own limit, per client address, apart from the keys' limit.
  const imageLimiter = new RateLimiter(IMAGE_REQUESTS_PER_MINUTE, options.rateLimitClock);
  const idempotency = new IdempotencyStore(clock);
  const faults: Faults = { ...NO_FAULTS, ...options.faults };
  const faultRandom = new SeededRandom(seed ^ 0x5eed);
  const router = new Router<ApiRoute>(apiRoutes);
  const admin: AdminServices = { state, webhooks, limiter, idempotency, faults };
  const responseViolations: string[] = [];
  const responseCheck = (options.validateResponses ?? process.env.SVC_SANDBOX_VALIDATE_RESPONSES === '1') ? createResponseCheck(responseViolations, log) : undefined;

  // Due expiries and retries also run while nobody calls (the virtual clock moves with real time).
  const timer = setInterval(() => {
    state.sweep();
    idempotency.prune();
    void webhooks.runDue();
  }, 1000);
  timer.unref();

  function authenticate(header: string | undefined): ApiKeyRecord {
    const refuse = (detail: string): ApiProblem =>
      new ApiProblem(401, 'invalid_api_key', detail, {}, { 'WWW-Authenticate': 'Bearer' });
    if (header === undefined || header.trim() === '') throw refuse('The Authorization header is missing; send Authorization: Bearer <API_KEY>.');
    const token = /^Bearer +(\S+)$/i.exec(header.trim())?.[1];
    if (token === undefined || !/^svc_live_[A-Za-z0-9]+$/.test(token)) throw refuse('The Authorization header is not "Bearer svc_live_…".');
    const key = state.keyByApiKey(token);
    if (key === undefined) throw refuse('The API key is not known.');
    if (key.revoked) throw refuse('The API key has been revoked.');
    if (!state.tenant.apiAccess) throw refuse('API access is turned off for the account.');
    return key;
  }

  function enforceRateLimit(key: ApiKeyRecord): void {
    const wait = limiter.take(key.name);
    if (wait > 0) throw rateLimited(`More than ${limiter.limit} requests a minute; retry after ${wait} s.`, wait);
  }

  /** 404/405 for an unknown path or method, then 406 and 403, which need the route to be known. */
  function routeCall(req: IncomingMessage, path: string, key: ApiKeyRecord): { route: ApiRoute; params: Record<string, string> } {
    // HEAD is answered like GET (node:http sends the headers without the body).
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    const matched = router.match(method, path);
    if (!acceptsJson(req.headers.accept)) throw new ApiProblem(406, 'not_acceptable', 'This API answers application/json only.');
    const { scope } = matched.route;
    if (scope !== null && !key.scopes.includes(scope)) {
      throw new ApiProblem(403, 'insufficient_scope', `This call needs the ${scope} scope, which the key lacks.`);
    }
    return matched;
  }

  /**
   * The /v1 pipeline, in its fixed order: auth → rate limit → injected faults → route (with accept
   * and scope) → body → idempotency → handle → respond. Events are recorded by the store as the
   * handler changes state, so no route can forget one or record it twice.
   */
  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, path: string, origin: string): Promise<void> {
    state.sweep();
    const key = authenticate(req.headers.authorization);
    enforceRateLimit(key);
    const fault = decideFault(faults, () => faultRandom.next());
    if (answerFaultBeforeCall(fault, req, res)) return;
    const { route, params } = routeCall(req, path, key);
    const body = route.method === 'POST' ? await readJsonBody(req) : undefined;
    // What fell due while the body arrived is applied before the call acts on the state.
    if (body !== undefined) state.sweep();

    const idempotencyKey = readIdempotencyKey(req.headers['idempotency-key'], route.idempotency);
    const claim = idempotencyKey === undefined ? undefined : idempotency.begin(key.name, idempotencyKey, requestFingerprint(route.method, path, url.searchParams, body));
    if (claim !== undefined && 'replay' in claim) {
      sendJson(res, claim.replay.status, claim.replay.body, { 'Idempotent-Replayed': 'true' });
      return;
    }

    let result: ApiResult;
    try {
      if (faults.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, faults.delayMs));
      result = await route.handle({ state, webhooks, key, params, query: url.searchParams, body, origin });
    } catch (err) {
      claim?.run.abandon();
      throw err;
    }
    claim?.run.finish({ status: result.status, body: result.json });

    if (fault === 'resetAfter') {
      // The call ran but the client never hears so: it must retry with the same Idempotency-Key.
      req.socket.destroy();
      return;
    }
    sendJson(res, result.status, result.json);
  }

  function handleImage(req: IncomingMessage, res: ServerResponse, path: string): void {
    const wait = imageLimiter.take(req.socket.remoteAddress ?? 'unknown');
    if (wait > 0) {
      throw rateLimited(`More than ${IMAGE_REQUESTS_PER_MINUTE} image requests a minute from this address.`, wait);
    }
    if (!/^\/images\/[a-z0-9-]+\.png$/.test(path)) throw new ApiProblem(404, 'not_found', `There is no ${path}.`);
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new ApiProblem(405, 'method_not_allowed', 'Images are read with GET.', {}, { Allow: 'GET, HEAD' });
    res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': PIXEL_PNG.length, 'Cache-Control': 'public, max-age=86400' });
    res.end(req.method === 'HEAD' ? undefined : PIXEL_PNG);
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      throw new ApiProblem(404, 'not_found', `There is no ${url.pathname}.`);
    }
    const origin = `http://${req.headers.host ?? 'localhost'}`;
    // The API description, without a key.
    if (isOpenApiRequest(req.method, path)) return serveOpenApi(req, res, origin);
    if (responseCheck !== undefined && (path === '/v1' || path.startsWith('/v1/'))) responseCheck.watch(req, res, path.slice('/v1'.length));
    if (path === '/v1' || path.startsWith('/v1/')) {
      await handleApi(req, res, url, path.slice('/v1'.length), origin);
    } else if (path === '/_sandbox' || path.startsWith('/_sandbox/')) {
      if (!isLoopback(req.socket.remoteAddress)) throw new ApiProblem(403, 'forbidden', 'The admin API answers loopback clients only.');
      guardAdminRequest(req.headers);
      // The team acts on the state as it is now: expiries that fell due are applied first.
      state.sweep();
      const result = await handleAdmin(admin, req.method ?? 'GET', path.slice('/_sandbox'.length), () => readJsonBody(req));
      sendJson(res, result.status, result.json);
    } else if (path.startsWith('/images/')) {
      handleImage(req, res, path);
    } else {
      throw new ApiProblem(404, 'not_found', `There is no ${path}; the API is under /v1 and the admin API under /_sandbox.`);
    }
  }

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    res.once('close', () => {
      const outcome = res.writableFinished ? String(res.statusCode) : 'connection closed';
      log(`${req.method} ${req.url} ${outcome} ${(performance.now() - started).toFixed(1)}ms`);
    });
    dispatch(req, res).catch((err: unknown) => {
      if (res.headersSent || res.destroyed) return;
      if (err instanceof ApiProblem) {
        sendProblem(res, err);
        return;
      }
      log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      sendProblem(res, new ApiProblem(500, 'internal_error', 'The sandbox failed to handle the request.'));
    });
  };

  return {
    handler,
    state,
    clock,
    webhooks,
    faults,
    responseViolations,
    info: (origin) => ({
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
    }),
    close: () => {
      clearInterval(timer);
      webhooks.close();
    },
  };
}
