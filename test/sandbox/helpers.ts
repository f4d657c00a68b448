import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { type SandboxInfo, type SandboxOptions, createSandbox } from '../../src/sandbox/app.js';
import { type ListeningSandbox, listen } from '../../src/sandbox/server.js';
import { tempDir } from '../helpers/cleanup.js';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON of the answer; tests read its fields freely, so it is not typed. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON read by assertions
  body: any;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  idempotencyKey?: string;
}

export type KeyName = 'full' | 'other' | 'links' | 'stores';

export interface TestSandbox {
  sandbox: ReturnType<typeof createSandbox>;
  server: ListeningSandbox;
  info: SandboxInfo;
  apiKey(name: KeyName): string;
  secret(name: KeyName): string;
  api(method: string, path: string, options?: CallOptions & { as?: KeyName }): Promise<Reply>;
  admin(method: string, path: string, body?: unknown): Promise<Reply>;
  close(): Promise<void>;
}

async function toReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/**
 * A sandbox with svc pointed at it through the environment: its `full` key and base URL, and a
 * fresh config directory (`extra`: more variables, which may name files in that directory).
 */
export async function startSandboxWithConfig(extra: (dir: string) => Record<string, string> = () => ({})): Promise<{ sandbox: TestSandbox; dir: string; env: Record<string, string> }> {
  const sandbox = await startSandbox();
  const dir = tempDir();
  return { sandbox, dir, env: { SVC_API_KEY: sandbox.apiKey('full'), SVC_BASE_URL: sandbox.info.baseUrl, SVC_CONFIG_DIR: dir, ...extra(dir) } };
}

export async function startSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  // Every answer is checked against the API description; a disagreement fails the call that saw it.
  const sandbox = createSandbox({ seed: 7, validateResponses: true, ...options });
  const conforming = (reply: Reply): Reply => {
    if (sandbox.responseViolations.length > 0) throw new Error(`sandbox answers disagree with openapi/openapi.yaml:\n${sandbox.responseViolations.join('\n')}`);
    return reply;
  };
  const server = await listen(sandbox, '127.0.0.1', 0);
  const info = sandbox.info(server.origin);
  const keyInfo = (name: KeyName) => {
    const found = info.keys.find((k) => k.name === name);
    if (found === undefined) throw new Error(`no key ${name}`);
    return found;
  };
  return {
    sandbox,
    server,
    info,
    apiKey: (name) => keyInfo(name).apiKey,
    secret: (name) => keyInfo(name).webhookSecret,
    async api(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const key = options.key === undefined ? keyInfo(options.as ?? 'full').apiKey : options.key;
      if (key !== null) headers.Authorization = `Bearer ${key}`;
      if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['Content-Type'] ??= 'application/json';
      }
      return conforming(await toReply(await fetch(`${info.baseUrl}${path}`, { method, headers, body })));
    },
    async admin(method, path, body) {
      return toReply(
        await fetch(`${info.adminUrl}${path}`, {
          method,
          headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
    },
    close: async () => {
      await server.close();
      conforming({} as Reply);
    },
  };
}

/** A starter of short-lived sandboxes, each closed (and its answers checked) after the test that started it. */
export function perTestSandboxes(): (options?: SandboxOptions) => Promise<TestSandbox> {
  const open: TestSandbox[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((sb) => sb.close()));
  });
  return async (options) => {
    const sb = await startSandbox(options);
    open.push(sb);
    return sb;
  };
}

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver answering with `status()` (changeable during a test). */
export async function startReceiver(initialStatus = 200): Promise<{
  url: string;
  received: ReceivedWebhook[];
  setStatus(status: number): void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}> {
  let status = initialStatus;
  const received: ReceivedWebhook[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    setStatus: (s) => (status = s),
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
