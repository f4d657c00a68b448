import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AdminServices, handleAdmin } from './admin.js';
import { VirtualClock } from './clock.js';
import { ApiProblem, sendJson, sendProblem } from './errors.js';
import { type FaultDecision, type Faults, NO_FAULTS, decideFault } from './faults.js';
import { createSeededState } from './fixtures.js';
import { IdempotencyStore, requestFingerprint } from './idempotency.js';
import type { ApiKeyRecord } from './models.js';
import { SeededRandom } from './random.js';
import { RateLimiter } from './ratelimit.js';
import { apiRoutes } from './routes/index.js';
import { type ApiResult, type ApiRoute, Router } from './router.js';
import type { SandboxState } from './store.js';
import { WebhookQueue } from './webhooks.js';

const MAX_BODY_BYTES = 10 * 1024 * 1024;
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const IMAGE_REQUESTS_PER_MINUTE = 600;
/** A 1×1 PNG: every image address of the sandbox opens, without a key. */
const PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

export interface SandboxOptions {
  seed?: number;
  approvalRequired?: boolean;
  rateLimitPerMinute?: number;
  faults?: Faults;
  /** One line per request and per webhook attempt. */
  log?: (line: string) => void;
  clock?: VirtualClock;
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
  info(origin: string): SandboxInfo;
  /** Stops timers and webhook attempts in flight. */
  close(): void;
}

function isLoopback(address: string | undefined): boolean {
  return address !== undefined && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));
}

/** Whether an Accept header admits JSON (a missing header does). */
function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const quality = params.find((p) => p.startsWith('q='));
    if (quality !== undefined && Number(quality.slice(2)) === 0) return false;
    return ['*/*', 'application/*', 'application/json', 'application/problem+json'].includes(type);
  });
}

/**
 * Reads a JSON body: 415 when a body is not declared application/json, 413 past 10 MB (the rest is
 * not read), 400 when it does not parse. No body gives undefined.
 */
async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const declaredLength = req.headers['content-length'];
  const hasBody = (declaredLength !== undefined && Number(declaredLength) > 0) || req.headers['transfer-encoding'] !== undefined;
  const contentType = req.headers['content-type'];
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  // A body must be declared application/json; so must an empty one that declares another type.
  if ((hasBody || (contentType !== undefined && contentType.trim() !== '')) && mediaType !== 'application/json') {
    throw new ApiProblem(415, 'unsupported_media_type', 'Send the request body as application/json.');
  }
  if (!hasBody) return undefined;
  const tooLarge = (): ApiProblem =>
    new ApiProblem(413, 'payload_too_large', 'The request body is larger than 10 MB.', {}, { Connection: 'close' });
  if (Number(declaredLength) > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = await new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // Stop reading here; the 413 goes out with Connection: close.
        req.off('data', onData);
        req.pause();
        reject(tooLarge());
        return;
      }
      received.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(received));
    req.once('error', reject);
  });
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiProblem(400, 'invalid_request', 'The request body is not valid JSON.', {
      errors: [{ field: 'body', code: 'invalid', message: 'The request body is not valid JSON.' }],
    });
  }
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const seed = options.seed ?? 1;
  const clock = options.clock ?? new VirtualClock();
  const log = options.log ?? (() => undefined);
  const state = createSeededState(clock, {
    seed,
    approvalRequired: options.approvalRequired ?? false,
    rateLimitPerMinute: options.rateLimitPerMinute ?? 3000,
  });
  const webhooks = new WebhookQueue(state, log);
  const limiter = new RateLimiter(state.tenant.rateLimitPerMinute);
  const imageLimiter = new RateLimiter(IMAGE_REQUESTS_PER_MINUTE);
  const idempotency = new IdempotencyStore(clock);
  const faults: Faults = { ...NO_FAULTS, ...options.faults };
  const faultRandom = new SeededRandom(seed ^ 0x5eed);
  const router = new Router<ApiRoute>(apiRoutes);
  const admin: AdminServices = { state, webhooks, limiter, idempotency, faults };

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

  /** Fixed order: auth → rate limit → faults → route → accept/scope → body → idempotency → handle. */
  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, path: string, origin: string): Promise<void> {
    state.sweep();
    const key = authenticate(req.headers.authorization);
    const wait = limiter.take(key.name);
    if (wait > 0) {
      throw new ApiProblem(429, 'rate_limited', `More than ${limiter.limit} requests a minute; retry after ${wait} s.`, {}, { 'Retry-After': String(wait) });
    }
    const fault: FaultDecision = decideFault(faults, () => faultRandom.next());
    if (fault === 'rateLimited') {
      throw new ApiProblem(429, 'rate_limited', 'Too many requests (injected fault); retry after 1 s.', {}, { 'Retry-After': '1' });
    }
    if (fault === 'error') throw new ApiProblem(500, 'internal_error', 'An injected server error; retry with the same Idempotency-Key.');
    if (fault === 'badGateway') {
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      return;
    }
    if (fault === 'resetBefore') {
      req.socket.destroy();
      return;
    }

    // HEAD is answered like GET (node:http sends the headers without the body).
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    const { route, params } = router.match(method, path);
    if (!acceptsJson(req.headers.accept)) throw new ApiProblem(406, 'not_acceptable', 'This API answers application/json only.');
    if (route.scope !== null && !key.scopes.includes(route.scope)) {
      throw new ApiProblem(403, 'insufficient_scope', `This call needs the ${route.scope} scope, which the key lacks.`);
    }
    const body = route.method === 'POST' ? await readJsonBody(req) : undefined;

    let idempotencyKey: string | undefined;
    if (route.idempotency === 'required' || route.idempotency === 'optional') {
      const header = req.headers['idempotency-key'];
      const value = Array.isArray(header) ? header[0] : header;
      if (value === undefined || value.trim() === '') {
        if (route.idempotency === 'required') {
          throw new ApiProblem(400, 'idempotency_key_required', 'This call needs an Idempotency-Key header (a fresh UUID per operation).');
        }
      } else if (value.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
        throw new ApiProblem(400, 'idempotency_key_invalid', 'The Idempotency-Key is longer than 255 characters.');
      } else {
        idempotencyKey = value;
      }
    }
    const claim = idempotencyKey === undefined ? undefined : idempotency.begin(key.name, idempotencyKey, requestFingerprint(route.method, path, url.searchParams, body));
    if (claim !== undefined && 'replay' in claim) {
      sendJson(res, claim.replay.status, claim.replay.body, { 'Idempotent-Replayed': 'true' });
      return;
    }

    let result: ApiResult = { status: 500, json: '' };
    try {
      if (faults.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, faults.delayMs));
      result = await route.handle({ state, webhooks, key, params, query: url.searchParams, body, origin });
    } catch (err) {
      if (err instanceof ApiProblem) result = { status: err.status, json: '' };
      throw err;
    } finally {
      claim?.run.finish({ status: result.status, body: result.json });
    }
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
      throw new ApiProblem(429, 'rate_limited', 'More than 600 image requests a minute from this address.', {}, { 'Retry-After': String(wait) });
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
    if (path === '/v1' || path.startsWith('/v1/')) {
      await handleApi(req, res, url, path.slice('/v1'.length), origin);
    } else if (path === '/_sandbox' || path.startsWith('/_sandbox/')) {
      if (!isLoopback(req.socket.remoteAddress)) throw new ApiProblem(403, 'forbidden', 'The admin API answers loopback clients only.');
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
