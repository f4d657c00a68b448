/**
 * A programmable API double that misbehaves the way real services do: each request takes the
 * next scripted answer for its route (status, headers, body, or a dropped connection).
 * Every request is recorded so tests can check what was sent and how often.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** an object is sent as JSON; a string as it is */
  body?: unknown;
  /** close the socket after reading the request, without answering */
  drop?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export class ApiDouble {
  readonly requests: RecordedRequest[] = [];
  private readonly scripts = new Map<string, ScriptedAnswer[]>();
  private server?: Server;
  baseUrl = '';

  /** Queue answers for `METHOD /path` (path with query, as sent). The last one repeats. */
  on(route: string, ...answers: ScriptedAnswer[]): this {
    this.scripts.set(route, [...(this.scripts.get(route) ?? []), ...answers]);
    return this;
  }

  count(route: string): number {
    return this.requests.filter((request) => `${request.method} ${request.path}` === route).length;
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const path = (request.url ?? '').replace(/^\/v1/, '');
        this.requests.push({ method: request.method ?? '', path, headers: request.headers, body });
        const route = `${request.method} ${path}`;
        const queue = this.scripts.get(route);
        const answer = queue ? (queue.length > 1 ? queue.shift()! : queue[0]) : { status: 404, body: { status: 404, code: 'not_found', detail: `no script for ${route}` } };
        if (answer.drop) {
          request.socket.destroy();
          return;
        }
        const isText = typeof answer.body === 'string';
        response.writeHead(answer.status ?? 200, {
          'content-type': isText ? 'text/html' : (answer.status ?? 200) >= 400 ? 'application/problem+json' : 'application/json',
          ...answer.headers,
        });
        response.end(answer.body === undefined ? '' : isText ? (answer.body as string) : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
