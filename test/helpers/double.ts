/**
 * A programmable API double that misbehaves the way real services do: each request takes the
 * next scripted answer for its route (status, headers, body, or a dropped connection).
 * Every request is recorded so tests can check what was sent and how often.
 *
 * It is strict: a request with no script is answered 500 `unexpected_request` and fails the test,
 * and so does a scripted answer never taken (setup.ts calls assertDone() after each test).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach } from 'vitest';
import { closeLater } from './cleanup.js';

/** Doubles started and not yet checked; setup.ts checks them after each test and each file. */
const started = new Set<ApiDouble>();

/**
 * After a test: a stopped double must have had exactly the requests it was told to expect, and a
 * running one (shared by several tests) no unexpected request. After a file: every double.
 */
export function checkDoubles(scope: 'test' | 'file'): void {
  const problems: string[] = [];
  for (const double of started) {
    if (scope === 'file' || double.stopped) {
      started.delete(double);
      problems.push(...double.problems());
    } else {
      problems.push(...double.problems().filter((problem) => problem.startsWith('unexpected')));
      double.unexpected.length = 0;
    }
  }
  if (problems.length > 0) throw new Error(`API double:\n${problems.join('\n')}`);
}

export interface ScriptedAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** an object is sent as JSON; a string as it is */
  body?: unknown;
  /** close the socket after reading the request, without answering */
  drop?: boolean;
  /** answer by hand (a hostile server: an endless or dripping body); status, headers and body are then ignored */
  respond?: (response: ServerResponse) => void;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export class ApiDouble {
  readonly requests: RecordedRequest[] = [];
  /** requests that had no script (`METHOD /path`) */
  readonly unexpected: string[] = [];
  private readonly scripts = new Map<string, ScriptedAnswer[]>();
  /** routes whose last (repeating) answer was never taken */
  private readonly untaken = new Set<string>();
  private server?: Server;
  stopped = false;
  baseUrl = '';

  /** Queue answers for `METHOD /path` (path with query, as sent). The last one repeats. */
  on(route: string, ...answers: ScriptedAnswer[]): this {
    this.scripts.set(route, [...(this.scripts.get(route) ?? []), ...answers]);
    this.untaken.add(route);
    return this;
  }

  /** What went against the script: unexpected requests, and scripted answers never taken. */
  problems(): string[] {
    const unused = [...this.scripts].flatMap(([route, queue]) => {
      const left = queue.length - 1 + (this.untaken.has(route) ? 1 : 0);
      return left > 0 ? [`expected but never sent: ${route} (${left} scripted answer${left === 1 ? '' : 's'} unused)`] : [];
    });
    return [...this.unexpected.map((route) => `unexpected request: ${route}`), ...unused];
  }

  /** Throws unless every request was scripted and every scripted answer was taken. */
  assertDone(): void {
    const problems = this.problems();
    if (problems.length > 0) throw new Error(`API double:\n${problems.join('\n')}`);
  }

  count(route: string): number {
    return this.requests.filter((request) => `${request.method} ${request.path}` === route).length;
  }

  /** svc pointed at this double through the environment: a test key, its base URL, `configDir`, and `extra`. */
  env(configDir: string, extra: Record<string, string> = {}): Record<string, string> {
    return { SVC_API_KEY: 'svc_live_test0000000000', SVC_BASE_URL: this.baseUrl, SVC_CONFIG_DIR: configDir, ...extra };
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
        if (queue === undefined) this.unexpected.push(route);
        else if (queue.length === 1) this.untaken.delete(route);
        const answer = queue ? (queue.length > 1 ? queue.shift()! : queue[0]) : { status: 500, body: { status: 500, code: 'unexpected_request', detail: `the test did not expect ${route}` } };
        if (answer.drop) {
          request.socket.destroy();
          return;
        }
        if (answer.respond) {
          answer.respond(response);
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
    started.add(this);
    closeLater(() => this.stop());
    return this;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/**
 * A fresh double for each test of the file, stopped after it (so setup.ts holds it to its script):
 * `started` receives it before the test, to keep it and point svc's environment at it.
 */
export function doubleEachTest(started: (api: ApiDouble) => void): void {
  let current: ApiDouble | undefined;
  beforeEach(async () => started((current = await new ApiDouble().start())));
  afterEach(() => current?.stop());
}
