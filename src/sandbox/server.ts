import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Sandbox } from './app.js';

export interface ListeningSandbox {
  server: http.Server;
  /** `http://host:port`, with the port actually bound (for `--port 0`). */
  origin: string;
  close(): Promise<void>;
}

/** Serves a sandbox on host:port; closing also ends keep-alive connections and the sandbox's timers. */
export async function listen(sandbox: Sandbox, host: string, port: number): Promise<ListeningSandbox> {
  // An idle keep-alive connection is closed after 65 s (as common load balancers do), not Node's 5 s:
  // a client that picks an idle connection just as the server closes it meets a reset request, and a
  // client idles for seconds between requests far more often than for a minute.
  const server = http.createServer({ keepAliveTimeout: 65_000 }, sandbox.handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: boundPort } = server.address() as AddressInfo;
  const hostInUrl = host.includes(':') ? `[${host}]` : host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const origin = `http://${hostInUrl}:${boundPort}`;
  // Links' claimUrls open this sandbox's gift site.
  sandbox.state.setOrigin(origin);
  return {
    server,
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        sandbox.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
