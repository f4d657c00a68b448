/**
 * The undici pieces the client needs: the keep-alive Agent and the `request` API.
 * undici's package index also loads fetch, WebSocket, caches and more (~70 ms at start-up);
 * loading these two modules directly takes less than half of that. If a future undici moves
 * them, the package index is the fallback, so this can only be slower, never broken.
 */
import type { Agent, Dispatcher } from 'undici';
import { createRequire } from 'node:module';
import { isLoopbackHost } from '../core/net.js';
import type { ProxySettings } from './proxy.js';

export interface Transport {
  /** A keep-alive pool; with proxy settings (see proxy.ts), undici's EnvHttpProxyAgent, which sends each request through the proxy its NO_PROXY rules choose. */
  createAgent(options?: Agent.Options, proxy?: ProxySettings): Dispatcher;
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
    // The package index, loaded only when a proxy is set (nothing else pays for it): the proxy agent
    // tunnels with the `connect` API, which the index adds to every dispatcher.
    createAgent: agents(Agent, () => createRequire(import.meta.url)('undici') as typeof import('undici')),
    request: (dispatcher, url, options) => {
      const { origin, pathname, search } = new URL(url);
      return request.call(dispatcher, { ...options, origin, path: pathname + search });
    },
  };
}

async function loadIndex(): Promise<Transport> {
  const undici = await import('undici');
  return {
    createAgent: agents(undici.Agent, () => undici),
    request: (dispatcher, url, options) => undici.request(url, { ...options, dispatcher }),
  };
}

/** Makes the keep-alive pool of `AgentClass`, or with a proxy the pair loopbackDirect routes between (`index`: undici's package index). */
function agents(AgentClass: typeof Agent, index: () => typeof import('undici')): Transport['createAgent'] {
  return (options, proxy) => {
    if (!proxy) return new AgentClass({ ...AGENT_DEFAULTS, ...options });
    const undici = index();
    return loopbackDirect(undici.Dispatcher, new AgentClass({ ...AGENT_DEFAULTS, ...options }), new undici.EnvHttpProxyAgent({ ...AGENT_DEFAULTS, ...options, ...proxy }));
  };
}

/**
 * With a proxy set: requests to a loopback host (localhost, ::1, any 127.x.y.z) go straight to it
 * through `direct`; every other request goes to undici's EnvHttpProxyAgent, which applies NO_PROXY
 * and tunnels through the proxy. (NO_PROXY has no address ranges, so 127.0.0.0/8 is decided here.)
 */
function loopbackDirect(DispatcherClass: typeof Dispatcher, direct: Dispatcher, proxied: Dispatcher): Dispatcher {
  class LoopbackDirect extends DispatcherClass {
    override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      return (isLoopbackOrigin(options.origin) ? direct : proxied).dispatch(options, handler);
    }

    override async close(): Promise<void> {
      await Promise.all([direct.close(), proxied.close()]);
    }
  }
  return new LoopbackDirect();
}

function isLoopbackOrigin(origin: Dispatcher.DispatchOptions['origin']): boolean {
  if (origin === undefined) return false;
  return isLoopbackHost(new URL(String(origin)).hostname);
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
