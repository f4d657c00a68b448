/**
 * The undici pieces the client needs: the keep-alive Agent and the `request` API.
 * undici's package index also loads fetch, WebSocket, caches and more (~70 ms at start-up);
 * loading these two modules directly takes less than half of that. If a future undici moves
 * them, the package index is the fallback, so this can only be slower, never broken.
 */
import type { Agent, Dispatcher } from 'undici';

export interface Transport {
  createAgent(options?: Agent.Options): Dispatcher;
  request(dispatcher: Dispatcher, url: string, options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'>): Promise<Dispatcher.ResponseData>;
}

const AGENT_DEFAULTS: Agent.Options = { keepAliveTimeout: 10_000, connections: 64 };

let transport: Promise<Transport> | undefined;

export function loadTransport(): Promise<Transport> {
  transport ??= loadDirect().catch(loadIndex);
  return transport;
}

async function loadDirect(): Promise<Transport> {
  const { Agent, request } = await import('./undici.js');
  if (typeof Agent !== 'function' || typeof request !== 'function') throw new Error('undici layout changed');
  return {
    createAgent: (options) => new Agent({ ...AGENT_DEFAULTS, ...options }),
    request: (dispatcher, url, options) => {
      const { origin, pathname, search } = new URL(url);
      return request.call(dispatcher, { ...options, origin, path: pathname + search });
    },
  };
}

async function loadIndex(): Promise<Transport> {
  const undici = await import('undici');
  return {
    createAgent: (options) => new undici.Agent({ ...AGENT_DEFAULTS, ...options }),
    request: (dispatcher, url, options) => undici.request(url, { ...options, dispatcher }),
  };
}

/** The error code of a failed request (undici puts it on the error or on its cause). */
export function errorCode(error: unknown): string {
  const err = error as { code?: unknown; cause?: { code?: unknown } };
  if (typeof err?.code === 'string') return err.code;
  if (typeof err?.cause?.code === 'string') return err.cause.code;
  return 'network_error';
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed',
  UND_ERR_SOCKET: 'connection closed by the other side',
  UND_ERR_CONNECT_TIMEOUT: 'connect time-out',
  UND_ERR_HEADERS_TIMEOUT: 'no response in time',
  UND_ERR_BODY_TIMEOUT: 'response body not finished in time',
  UND_ERR_CLOSED: 'connection closed',
};

/** A failed request in words: what a person can act on, not undici's internals. */
export function describeNetworkError(error: unknown): string {
  return NETWORK_ERRORS[errorCode(error)] ?? (error instanceof Error ? error.message : String(error));
}
