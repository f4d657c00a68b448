/**
 * `svc events tail` in-process against the sandbox: the catch-up equals the feed, filters, the saved
 * cursor, the table, and --forward-to delivering signed copies without ever moving the cursor past an
 * event it could not deliver (its retries wait in virtual time). What only a process shows (a run
 * killed at random moments, --follow ended by Ctrl-C) is in test/e2e/events-tail.test.ts.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { closeLater, tempDir } from '../helpers/cleanup.js';
import { svc } from '../helpers/run.js';
import { addEvents as addEventsTo, feedLines as feedLinesOf, startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

vi.mock('../../src/core/sleep.js', () => import('../helpers/virtual-time.js'));

let sandbox: InProcessSandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});

const addEvents = (count: number) => addEventsTo(sandbox, count);
const feedLines = () => feedLinesOf(sandbox);
const linesOf = (stdout: string) => stdout.split('\n').filter((line) => line !== '');
/**
 * One line of the events table off a terminal (a pipe has no width to fit, so nothing is cut): time,
 * type, the whole id and status at their natural widths (27, 23, 36, 10), two spaces apart, then the
 * details, the line's end trimmed.
 */
const tableLine = (time: string, type: string, id: string, status: string, rest = '') =>
  [time.padEnd(27), type.padEnd(23), id.padEnd(36), status.padEnd(10), rest].join('  ').trimEnd();
/** Brand and campaign names as a person's table shows them: GET /me and GET /campaigns (ACTIVE ones). */
async function names(): Promise<Map<string, string>> {
  const get = async (path: string) => (await (await fetch(`${sandbox.baseUrl}${path}`, { headers: { authorization: `Bearer ${sandbox.key('full').apiKey}` } })).json()) as { brands: { id: string; name: string }[]; items: { id: string; name: string }[] };
  const me = await get('/me');
  const campaigns = await get('/campaigns?limit=100');
  return new Map([...me.brands, ...campaigns.items].map((item: { id: string; name: string }) => [item.id, item.name]));
}
/**
 * The table line of a personal-link event: the forwarding result if any, then its campaign (by
 * name, `catalog` for a catalog link, the id when the name is unknown) and brand by name.
 */
const eventLine = (line: string, named: Map<string, string>, note = '') => {
  const event = JSON.parse(line);
  const campaign = event.data.campaignId ? (named.get(event.data.campaignId) ?? event.data.campaignId) : 'catalog';
  const details = `${campaign} · ${named.get(event.data.brandId) ?? event.data.brandId}`;
  return tableLine(event.occurredAt, event.type, event.data.id, event.data.status, [note, details].filter(Boolean).join('  '));
};
const HEADER = tableLine('Time', 'Type', 'ID', 'Status', 'Details');
/** The whole table: the header, then one line per event. */
const table = (lines: string[]) => [HEADER, ...lines, ''].join('\n');

/** Each run gets its own config dir, so saved cursors never leak between tests. */
const envWith = (configDir: string, extra: Record<string, string> = {}) => ({ ...sandbox.env('full'), SVC_CONFIG_DIR: configDir, ...extra });

describe('events tail', () => {
  it('prints the feed as JSON lines, exactly as the API returns it', async () => {
    await addEvents(3);
    const result = await svc(['events', 'tail', '--limit', '2'], { env: envWith(tempDir()) });
    expect(result.exitCode).toBe(0);
    expect(linesOf(result.stdout)).toEqual(await feedLines());
  });

  it('filters by type, keeps the last N, and starts after a cursor', async () => {
    const all = await feedLines();
    const env = envWith(tempDir());
    const none = await svc(['events', 'tail', '--type', 'order.'], { env });
    expect(none.exitCode).toBe(0);
    expect(linesOf(none.stdout)).toEqual(all.filter((line) => JSON.parse(line).type.startsWith('order.')));
    const links = await svc(['events', 'tail', '--type', 'personal_link.created', '--type', 'order.sent'], { env });
    expect(linesOf(links.stdout)).toEqual(all.filter((line) => ['personal_link.created', 'order.sent'].includes(JSON.parse(line).type)));
    const last = await svc(['events', 'tail', '-n', '2', '--limit', '1'], { env });
    expect(linesOf(last.stdout)).toEqual(all.slice(-2));
  });

  it('a run that leaves events out (--type, -n) does not move the saved cursor', async () => {
    const env = envWith(tempDir());
    const all = await feedLines();
    expect((await svc(['events', 'tail', '--resume', '--type', 'order.'], { env })).exitCode).toBe(0);
    expect((await svc(['events', 'tail', '--resume', '-n', '1'], { env })).exitCode).toBe(0);
    const resumed = await svc(['events', 'tail', '--resume'], { env });
    expect(linesOf(resumed.stdout)).toEqual(all);
  });

  it('renders a table for people', async () => {
    const result = await svc(['events', 'tail', '-o', 'table'], { env: envWith(tempDir()) });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    const named = await names();
    expect(result.stdout).toBe(table((await feedLines()).map((line) => eventLine(line, named))));
  });

  it('refuses --after together with --resume (exit 2) and a bad key (exit 4)', async () => {
    const env = envWith(tempDir());
    expect(await svc(['events', 'tail', '--after', 'x', '--resume'], { env })).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: 'error: usage_error: --after and --resume: give one or the other\n',
    });
    expect(await svc(['events', 'tail', '--interval', '0'], { env })).toEqual({ exitCode: 2, stdout: '', stderr: 'error: usage_error: --interval: must be a positive number, got 0\n' });
    expect(await svc(['events', 'tail', '--follow'], { env: { ...env, SVC_API_KEY: 'svc_live_nope' } })).toEqual({
      exitCode: 4,
      stdout: '',
      stderr: 'error: invalid_api_key: The API key is not known.\n',
    });
  });
});

describe('events tail --forward-to', () => {

  it('delivers each event like a webhook, signed with the webhook secret', async () => {
    const secret = sandbox.key('full').webhookSecret;
    const { url, received } = await startReceiver(() => 200);
    const result = await svc(['events', 'tail', '--forward-to', url, '-o', 'table'], { env: envWith(tempDir(), { SVC_WEBHOOK_SECRET: secret }) });
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
    const named = await names();
    expect(result.stdout).toBe(table(feed.map((line) => eventLine(line, named, '→ 200'))));
    expect(result.stderr).toBe('');
  });

  it('goes on past a receiver that keeps failing (one round of retries), without moving the cursor past it', async () => {
    const configDir = tempDir();
    const env = envWith(configDir, { SVC_WEBHOOK_SECRET: sandbox.key('full').webhookSecret });
    const failing = await startReceiver(() => 500);
    const failed = await svc(['events', 'tail', '--forward-to', failing.url, '--resume'], { env });
    const feed = await feedLines();
    const [first, ...rest] = feed;
    const ids = feed.map((line) => JSON.parse(line).id as string);
    expect(feed.length).toBeGreaterThan(1);
    expect(failed.exitCode).toBe(1);
    // Every event is still printed: the tail goes on past the receiver.
    expect(failed.stdout).toBe(feed.map((line) => `${line}\n`).join(''));
    expect(failed.stderr).toBe(
      [
        'No saved cursor for profile default; starting from the oldest event.',
        `forwarding ${ids[0]} failed (receiver answered 500); attempt 2 in 0.5s`,
        `forwarding ${ids[0]} failed (receiver answered 500); attempt 3 in 1.0s`,
        `forwarding ${ids[0]} failed (receiver answered 500); attempt 4 in 2.0s`,
        `${ids[0]}: → not delivered after 4 attempts: receiver answered 500`,
        `note: event ${ids[0]} was not delivered; the saved cursor stays before it for the rest of this run`,
        ...ids.slice(1).map((id) => `${id}: → not delivered after 1 attempt: receiver answered 500`),
        `error: forward_failed: ${feed.length} events not delivered to ${failing.url}, the first ${ids[0]}`,
        'hint: the saved cursor stays before that event; fix the receiver and run again with --resume',
        '',
      ].join('\n'),
    );
    // The first event gets 4 attempts; while the receiver stays down, each later one gets one.
    expect(failing.received.map((delivery) => delivery.body)).toEqual([first, first, first, first, ...rest]);
    const working = await startReceiver(() => 200);
    const retried = await svc(['events', 'tail', '--forward-to', working.url, '--resume'], { env });
    expect(retried.exitCode).toBe(0);
    expect(working.received.map((delivery) => delivery.body)).toEqual(feed);
    expect(retried.stdout).toBe(feed.map((line) => `${line}\n`).join(''));
    // No cursor was saved by the failed run: the resumed one starts from the oldest event again.
    expect(retried.stderr).toBe(['No saved cursor for profile default; starting from the oldest event.', ...ids.map((id) => `${id}: → 200`), ''].join('\n'));
  });

  async function startReceiver(status: () => number) {
    const received: { headers: IncomingMessage['headers']; body: string }[] = [];
    const server = createServer(async (request, response) => {
      let body = '';
      for await (const chunk of request) body += chunk;
      received.push({ headers: request.headers, body });
      response.writeHead(status()).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closeLater(() => {
      server.closeAllConnections();
      server.close();
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
  }
});
