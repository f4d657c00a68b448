/**
 * The undici pieces the client needs: the keep-alive Agent and the `request` API.
 * undici's package index also loads fetch, WebSocket, caches and more (~70 ms at start-up);
 * loading these two modules directly takes less than half of that. If a future undici moves
 * them, the package index is the fallback, so this can only be slower, never broken.
 */
import type { Dispatcher } from 'undici';

export interface Transport {
  createAgent(): Dispatcher;
  request(dispatcher: Dispatcher, url: string, options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'>): Promise<Dispatcher.ResponseData>;
}

let transport: Promise<Transport> | undefined;

export function loadTransport(): Promise<Transport> {
  transport ??= loadDirect().catch(loadIndex);
  return transport;
}

async function loadDirect(): Promise<Transport> {
  const [{ default: Agent }, { default: request }] = await Promise.all([
    import('undici/lib/dispatcher/agent.js'),
    import('undici/lib/api/api-request.js'),
  ]);
  if (typeof Agent !== 'function' || typeof request !== 'function') throw new Error('undici layout changed');
  return {
    createAgent: () => new Agent({ keepAliveTimeout: 10_000, connections: 64 }),
    request: (dispatcher, url, options) => {
      const { origin, pathname, search } = new URL(url);
      return request.call(dispatcher, { ...options, origin, path: pathname + search });
    },
  };
}

async function loadIndex(): Promise<Transport> {
  const undici = await import('undici');
  return {
    createAgent: () => new undici.Agent({ keepAliveTimeout: 10_000, connections: 64 }),
    request: (dispatcher, url, options) => undici.request(url, { ...options, dispatcher }),
  };
}
