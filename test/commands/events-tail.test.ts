/**
 * `svc events tail` against the sandbox: the catch-up equals the feed, filters, a run killed at
 * random moments and resumed skips nothing, --follow shows a new event within its interval, and
 * --forward-to delivers signed copies and never moves the cursor past an event it could not deliver.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/run.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { BIN, tempConfigDir } from '../helpers/svc.js';

let sandbox: InProcessSandbox;
let brandId: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  brandId = sandbox.key('full').brandIds[0];
});

/** Events recorded by the team (admin POST /links), so every key's feed gets them. */
async function addEvents(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const { status } = await sandbox.admin('POST', '/links', { brandId, fullName: `Player ${i}` });
    expect(status).toBeLessThan(300);
  }
}

/** The whole feed read directly, each item as its exact JSON line. */
async function feedLines(): Promise<string[]> {
  const lines: string[] = [];
  let after: string | null = null;
  for (;;) {
    const url = `${sandbox.baseUrl}/events?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${sandbox.key('full').apiKey}` } });
    const page = (await response.json()) as { items: unknown[]; nextCursor: string | null };
    if (page.items.length === 0) return lines;
    lines.push(...page.items.map((item) => JSON.stringify(item)));
    after = page.nextCursor;
  }
}

const idsOf = (lines: string[]) => lines.map((line) => (JSON.parse(line) as { id: string }).id);
const linesOf = (stdout: string) => stdout.split('\n').filter((line) => line !== '');

/** Each run gets its own config dir, so saved cursors never leak between tests. */
const envWith = (configDir: string, extra: Record<string, string> = {}) => ({ ...sandbox.env('full'), SVC_CONFIG_DIR: configDir, ...extra });

describe('events tail', () => {
  it('prints the feed as JSON lines, exactly as the API returns it', async () => {
    await addEvents(3);
    const result = await svc(['events', 'tail', '--limit', '2'], { env: envWith(tempConfigDir()) });
    expect(result.exitCode).toBe(0);
    expect(linesOf(result.stdout)).toEqual(await feedLines());
  });

  it('filters by type, keeps the last N, and starts after a cursor', async () => {
    const all = await feedLines();
    const env = envWith(tempConfigDir());
    const none = await svc(['events', 'tail', '--type', 'order.'], { env });
    expect(none.exitCode).toBe(0);
    expect(linesOf(none.stdout)).toEqual(all.filter((line) => JSON.parse(line).type.startsWith('order.')));
    const links = await svc(['events', 'tail', '--type', 'personal_link.created', '--type', 'order.sent'], { env });
    expect(linesOf(links.stdout)).toEqual(all.filter((line) => ['personal_link.created', 'order.sent'].includes(JSON.parse(line).type)));
    const last = await svc(['events', 'tail', '-n', '2', '--limit', '1'], { env });
    expect(linesOf(last.stdout)).toEqual(all.slice(-2));
  });

  it('a run that leaves events out (--type, -n) does not move the saved cursor', async () => {
    const env = envWith(tempConfigDir());
    const all = await feedLines();
    expect((await svc(['events', 'tail', '--resume', '--type', 'order.'], { env })).exitCode).toBe(0);
    expect((await svc(['events', 'tail', '--resume', '-n', '1'], { env })).exitCode).toBe(0);
    const resumed = await svc(['events', 'tail', '--resume'], { env });
    expect(linesOf(resumed.stdout)).toEqual(all);
  });

  it('renders a table for people', async () => {
    const result = await svc(['events', 'tail', '-o', 'table'], { env: envWith(tempConfigDir()) });
    const [header, first] = result.stdout.split('\n');
    expect(header).toMatch(/^TIME\s+TYPE\s+ID\s+STATUS\s+DETAILS$/);
    const event = JSON.parse((await feedLines())[0]);
    expect(first).toContain(event.occurredAt);
    expect(first).toContain(event.type);
    expect(first).toContain(event.data.id.slice(0, 8));
  });

  it('refuses --after together with --resume (exit 2) and a bad key (exit 4)', async () => {
    const env = envWith(tempConfigDir());
    expect((await svc(['events', 'tail', '--after', 'x', '--resume'], { env })).exitCode).toBe(2);
    expect((await svc(['events', 'tail', '--interval', '0'], { env })).exitCode).toBe(2);
    expect((await svc(['events', 'tail', '--follow'], { env: { ...env, SVC_API_KEY: 'svc_live_nope' } })).exitCode).toBe(4);
  });

  it('--resume after runs killed at random moments skips no event', async () => {
    await addEvents(150);
    const expected = idsOf(await feedLines());
    const env = envWith(tempConfigDir());
    const outputs: string[] = [];
    for (let run = 0; run < 8; run++) {
      outputs.push(await runUntilKilled(['events', 'tail', '--resume', '--limit', '3'], env, Math.random() * 120));
    }
    const final = await svc(['events', 'tail', '--resume', '--limit', '3'], { env });
    expect(final.exitCode).toBe(0);
    outputs.push(final.stdout);
    // A line cut by the kill is not an event; every complete line is.
    const seen = outputs.flatMap((stdout) => linesOf(stdout).filter(isJson)).map((line) => JSON.parse(line).id as string);
    const union = seen.filter((id, index) => seen.indexOf(id) === index);
    expect(union).toEqual(expected);
  });

  it('--follow prints a new event within its interval, and Ctrl-C saves the cursor and exits 130', async () => {
    const configDir = tempConfigDir();
    const before = await feedLines();
    const child = spawn(process.execPath, [BIN, 'events', 'tail', '--follow', '--interval', '0.5'], { env: { ...process.env, ...envWith(configDir) } });
    const out = lineCollector(child.stdout!);
    await out.waitFor((lines) => lines.length >= before.length);
    await delay(300);
    const started = Date.now();
    await addEvents(1);
    await out.waitFor((lines) => lines.length === before.length + 1);
    expect(Date.now() - started).toBeLessThan(1500);
    const newest = (await feedLines()).at(-1);
    expect(out.lines.at(-1)).toBe(newest);
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGINT');
    });
    expect(code).toBe(130);
    const resumed = await svc(['events', 'tail', '--resume'], { env: envWith(configDir) });
    expect(linesOf(resumed.stdout)).toEqual([]);
  });
});

describe('events tail --forward-to', () => {
  let receiver: Server | undefined;
  afterAll(() => receiver?.close());

  it('delivers each event like a webhook, signed with the webhook secret', async () => {
    const secret = sandbox.key('full').webhookSecret;
    const { url, received } = await startReceiver(() => 200);
    const result = await svc(['events', 'tail', '--forward-to', url, '-o', 'table'], { env: envWith(tempConfigDir(), { SVC_WEBHOOK_SECRET: secret }) });
    expect(result.exitCode).toBe(0);
    const feed = await feedLines();
    expect(received.map((delivery) => delivery.body)).toEqual(feed);
    for (const delivery of received) {
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['svc-event-id']).toBe(JSON.parse(delivery.body).id);
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(delivery.headers['svc-signature']))!;
      expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(60);
      expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${delivery.body}`).digest('hex'));
    }
    expect(result.stdout.split('\n').filter((line) => line.includes('→ 200'))).toHaveLength(feed.length);
  });

  it('stops on a receiver that keeps failing, without moving the cursor past it', async () => {
    const configDir = tempConfigDir();
    const env = envWith(configDir, { SVC_WEBHOOK_SECRET: sandbox.key('full').webhookSecret });
    const failing = await startReceiver(() => 500);
    const failed = await svc(['events', 'tail', '--forward-to', failing.url, '--resume'], { env });
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain('forward_failed');
    expect(failing.received.length).toBe(4);
    const working = await startReceiver(() => 200);
    const retried = await svc(['events', 'tail', '--forward-to', working.url, '--resume'], { env });
    expect(retried.exitCode).toBe(0);
    expect(working.received.map((delivery) => delivery.body)).toEqual(await feedLines());
  }, 20_000);

  async function startReceiver(status: () => number) {
    const received: { headers: IncomingMessage['headers']; body: string }[] = [];
    const server = createServer(async (request, response) => {
      let body = '';
      for await (const chunk of request) body += chunk;
      received.push({ headers: request.headers, body });
      response.writeHead(status()).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = server;
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
  }
});

function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs svc and SIGKILLs it `afterOutputMs` after its first output (or when it ends by itself). */
function runUntilKilled(args: string[], env: Record<string, string>, afterOutputMs: number): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      timer ??= setTimeout(() => child.kill('SIGKILL'), afterOutputMs);
    });
    child.once('close', () => {
      clearTimeout(timer);
      resolve(stdout);
    });
  });
}

function lineCollector(stream: NodeJS.ReadableStream) {
  const lines: string[] = [];
  let partial = '';
  const waiters: (() => void)[] = [];
  stream.on('data', (chunk) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    waiters.forEach((wake) => wake());
  });
  return {
    lines,
    waitFor(done: (lines: string[]) => boolean, timeoutMs = 10_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out; got ${lines.length} lines`)), timeoutMs);
        const check = () => {
          if (!done(lines)) return;
          clearTimeout(timer);
          resolve();
        };
        waiters.push(check);
        check();
      });
    },
  };
}
