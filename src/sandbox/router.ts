import { ApiProblem, invalidField, notFound } from './errors.js';
import type { ApiKeyRecord, Scope } from './models.js';
import type { SandboxState } from './store.js';
import { isPlainObject, isUuid } from './validate.js';
import type { WebhookQueue } from './webhooks.js';

/** What a /v1 handler gets: the pipeline has already authenticated, limited, routed and parsed. */
export interface ApiContext {
  state: SandboxState;
  webhooks: WebhookQueue;
  key: ApiKeyRecord;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The path under /v1, decoded. */
  path: string;
  /** The parsed JSON body; undefined when none was sent. */
  body: unknown;
  /** Scheme, host and port the client called, for absolute image addresses. */
  origin: string;
}

/** A response body is JSON text, so pre-serialised items (events) are sent byte for byte. */
export interface ApiResult {
  status: number;
  json: string;
}

export function ok(body: unknown, status = 200): ApiResult {
  return { status, json: JSON.stringify(body) };
}

/**
 * How a route treats Idempotency-Key: `required` and `optional` read it (and replay); `ignored`
 * marks a POST that deliberately acts on every call; `none` is a read, where the header means nothing.
 */
export type IdempotencyMode = 'required' | 'optional' | 'ignored' | 'none';

export interface ApiRoute {
  method: 'GET' | 'POST';
  /** Path under /v1; `{name}` matches one segment without `/` or `:`. */
  path: string;
  scope: Scope | null;
  idempotency: IdempotencyMode;
  handle(ctx: ApiContext): ApiResult | Promise<ApiResult>;
}

interface CompiledRoute<R> {
  route: R;
  pattern: RegExp;
  names: string[];
}

/** The params of a path without any: shared, never written. */
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * Matches paths to routes and tells a wrong method (405) from an unknown path (404). Paths without
 * parameters are found in a map first, so the most frequent calls match without a regular expression.
 */
export class Router<R extends { method: string; path: string }> {
  private readonly compiled: CompiledRoute<R>[];
  /** `METHOD path` of each route without parameters. */
  private readonly fixed = new Map<string, { route: R; params: Record<string, string> }>();

  constructor(routes: R[]) {
    for (const route of routes) if (!route.path.includes('{')) this.fixed.set(`${route.method} ${route.path}`, { route, params: NO_PARAMS });
    this.compiled = routes.map((route) => {
      const names: string[] = [];
      const source = route.path
        .split(/(\{[a-zA-Z]+\})/)
        .map((part) => {
          const name = /^\{([a-zA-Z]+)\}$/.exec(part)?.[1];
          if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(name);
          return '([^/:]+)';
        })
        .join('');
      return { route, pattern: new RegExp(`^${source}$`), names };
    });
  }

  match(method: string, path: string): { route: R; params: Record<string, string> } {
    const fixed = this.fixed.get(`${method} ${path}`);
    if (fixed !== undefined) return fixed;
    const allowed: string[] = [];
    for (const { route, pattern, names } of this.compiled) {
      const found = pattern.exec(path);
      if (found === null) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      names.forEach((name, i) => (params[name] = found[i + 1]));
      return { route, params };
    }
    if (allowed.length > 0) {
      throw new ApiProblem(405, 'method_not_allowed', `${method} is not allowed on ${path}; use ${allowed.join(', ')}.`, {}, { Allow: allowed.join(', ') });
    }
    throw new ApiProblem(404, 'not_found', `There is no ${path}.`);
  }
}

/** A path id: anything but a UUID is 404, like a record the key cannot see. */
export function pathId(ctx: { params: Record<string, string> }, name: string, what: string): string {
  const value = ctx.params[name];
  if (!isUuid(value)) throw notFound(what);
  return value.toLowerCase();
}

/** The record a path id names; 404 when the id is malformed or `find` gives nothing. */
export function pathRecord<T>(ctx: { params: Record<string, string> }, name: string, what: string, find: (id: string) => T | undefined): T {
  const record = find(pathId(ctx, name, what));
  if (record === undefined) throw notFound(what);
  return record;
}

/** The JSON body as an object; a missing body counts as `{}` so that required fields are named. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (!isPlainObject(body)) {
    throw invalidField('body', 'invalid', 'The request body must be a JSON object.');
  }
  return body;
}

/** One query parameter: absent gives undefined so optional checks pass it by. */
export function queryValue(query: URLSearchParams, name: string): string | undefined {
  return query.get(name) ?? undefined;
}
