import type { IncomingMessage, ServerResponse } from 'node:http';
import { MASKED_KEY, isApiKeyFormat } from '../api/keys.js';
import { ApiProblem, rateLimited } from './errors.js';
import { type Faults, type FaultDecision, answerFaultBeforeCall, decideFault } from './faults.js';
import { acceptsJson, readJsonBody, sendJson } from './http.js';
import { type IdempotencyStore, type IdempotentRun, readIdempotencyKey, requestFingerprint } from './idempotency.js';
import type { ApiKeyRecord } from './models.js';
import type { RateLimiter } from './ratelimit.js';
import { apiRoutes } from './routes/index.js';
import { type ApiContext, type ApiResult, type ApiRoute, Router } from './router.js';
import type { SandboxState } from './store.js';
import type { WebhookQueue } from './webhooks.js';

/** What the /v1 pipeline works with. */
export interface PipelineServices {
  state: SandboxState;
  webhooks: WebhookQueue;
  limiter: RateLimiter;
  idempotency: IdempotencyStore;
  faults: Faults;
  /** The generator injected faults are drawn from. */
  faultRandom: () => number;
}

/** A request's path (decoded) and query. */
export interface RequestTarget {
  path: string;
  query: URLSearchParams;
}

const refuse = (detail: string): ApiProblem => new ApiProblem(401, 'invalid_api_key', detail, {}, { 'WWW-Authenticate': 'Bearer' });
const BEARER = /^Bearer +(\S+)$/i;

/**
 * The /v1 pipeline, in its fixed order: auth → rate limit → injected faults → route (with accept
 * and scope) → body → idempotency → handle → respond. Events are recorded by the store as the
 * handler changes state, so no route can forget one or record it twice. A call that needs no body
 * and no wait runs to its answer synchronously (no promise per request); the others return one.
 */
export function createApiPipeline(services: PipelineServices): (req: IncomingMessage, res: ServerResponse, target: RequestTarget, origin: string) => Promise<void> | void {
  const pipeline = new ApiPipeline(services);
  return (req, res, target, origin) => pipeline.handle(req, res, target, origin);
}

class ApiPipeline {
  private readonly router = new Router<ApiRoute>(apiRoutes);
  /**
   * Authorization headers already read, to their keys (a client sends the same one on every call;
   * a key's secret never changes: it is revoked, which is checked on every call).
   */
  private readonly known = new Map<string, ApiKeyRecord>();

  constructor(private readonly services: PipelineServices) {}

  handle(req: IncomingMessage, res: ServerResponse, target: RequestTarget, origin: string): Promise<void> | void {
    const { state, webhooks, limiter, faults, faultRandom } = this.services;
    state.sweep();
    const key = this.authenticate(req.headers.authorization);
    const wait = limiter.take(key.name);
    if (wait > 0) throw rateLimited(`More than ${limiter.limit} requests a minute; retry after ${wait} s.`, wait);
    const fault = decideFault(faults, faultRandom);
    if (answerFaultBeforeCall(fault, req, res)) return;
    const { route, params } = this.routeCall(req, target.path, key);
    const ctx: ApiContext = { state, webhooks, key, params, query: target.query, body: undefined, origin, path: target.path };
    if (route.method !== 'POST') return this.call(req, res, ctx, route, fault);
    return readJsonBody(req).then((body) => {
      // What fell due while the body arrived is applied before the call acts on the state.
      if (body !== undefined) state.sweep();
      ctx.body = body;
      return this.call(req, res, ctx, route, fault);
    });
  }

  private authenticate(header: string | undefined): ApiKeyRecord {
    const cached = header === undefined ? undefined : this.known.get(header);
    const key = cached ?? this.findKey(header);
    if (key.revoked) throw refuse('The API key has been revoked.');
    if (!this.services.state.tenant.apiAccess) throw refuse('API access is turned off for the account.');
    if (cached === undefined && this.known.size < 64) this.known.set(header as string, key);
    return key;
  }

  private findKey(header: string | undefined): ApiKeyRecord {
    if (header === undefined || header.trim() === '') throw refuse('The Authorization header is missing; send Authorization: Bearer <API_KEY>.');
    const token = BEARER.exec(header.trim())?.[1];
    if (token === undefined || !isApiKeyFormat(token)) throw refuse(`The Authorization header is not "Bearer ${MASKED_KEY}".`);
    const key = this.services.state.keyByApiKey(token);
    if (key === undefined) throw refuse('The API key is not known.');
    return key;
  }

  /** 404/405 for an unknown path or method, then 406 and 403, which need the route to be known. */
  private routeCall(req: IncomingMessage, path: string, key: ApiKeyRecord): { route: ApiRoute; params: Record<string, string> } {
    // HEAD is answered like GET (node:http sends the headers without the body).
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    const matched = this.router.match(method, path);
    if (!acceptsJson(req.headers.accept)) throw new ApiProblem(406, 'not_acceptable', 'This API answers application/json only.');
    const { scope } = matched.route;
    if (scope !== null && !key.scopes.includes(scope)) {
      throw new ApiProblem(403, 'insufficient_scope', `This call needs the ${scope} scope, which the key lacks.`);
    }
    return matched;
  }

  /** From the body on: idempotency, the injected delay, the handler. */
  private call(req: IncomingMessage, res: ServerResponse, ctx: ApiContext, route: ApiRoute, fault: FaultDecision): Promise<void> | void {
    const idempotencyKey = readIdempotencyKey(req.headers['idempotency-key'], route.idempotency);
    const claim = idempotencyKey === undefined ? undefined : this.services.idempotency.begin(ctx.key.name, idempotencyKey, requestFingerprint(route.method, ctx.path, ctx.query, ctx.body));
    if (claim !== undefined && 'replay' in claim) {
      sendJson(res, claim.replay.status, claim.replay.body, { 'Idempotent-Replayed': 'true' });
      return;
    }
    const { delayMs } = this.services.faults;
    if (delayMs <= 0) return invoke(res, ctx, route, claim?.run, fault);
    return new Promise((resolve) => setTimeout(resolve, delayMs)).then(() => invoke(res, ctx, route, claim?.run, fault));
  }
}

/** Runs the handler and answers; an idempotent run is finished with the answer or abandoned. */
function invoke(res: ServerResponse, ctx: ApiContext, route: ApiRoute, claim: IdempotentRun | undefined, fault: FaultDecision): Promise<void> | void {
  const respond = (result: ApiResult): void => {
    claim?.finish({ status: result.status, body: result.json });
    // The call ran but the client never hears so: it must retry with the same Idempotency-Key.
    if (fault === 'resetAfter') res.socket?.destroy();
    else sendJson(res, result.status, result.json);
  };
  let result: ApiResult | Promise<ApiResult>;
  try {
    result = route.handle(ctx);
  } catch (err) {
    claim?.abandon();
    throw err;
  }
  if (!(result instanceof Promise)) return respond(result);
  return result.then(respond, (err: unknown) => {
    claim?.abandon();
    throw err;
  });
}
