/**
 * Every walk stops on a cursor loop (Trust what svc reads): a server (the strict double) that hands
 * back a cursor already followed (A→B→A), or the same page again, ends `links ls --all`, `api
 * --paginate`, `events tail` (with and without --follow), `inspect`, `refunds due` and `refunds run`
 * with exit 5 and `error: cursor_loop: …`, after a bounded number of requests and without printing
 * the repeated page. Before, each ran forever.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cleanup.js';
import { ApiDouble } from '../helpers/double.js';
import { runInProcess } from '../helpers/run.js';

let api: ApiDouble;
let dir: string;
let env: Record<string, string>;
beforeEach(async () => {
  api = await new ApiDouble().start();
  dir = tempDir();
  env = api.env(dir, { PATH: process.env.PATH ?? '/usr/bin:/bin' });
});
afterEach(async () => {
  await api.stop();
});

const run = (...argv: string[]) => runInProcess(argv, env);
const HINT = 'hint: the service handed back a page or cursor it already gave; nothing of that page was used\n';
const loopLine = (path: string, cursor: string, page: number) => `error: cursor_loop: GET ${path} handed back cursor "${cursor}", which this walk already followed (page ${page}); stopping, the walk would never end\n${HINT}`;
const samePage = (path: string, page: number) => `error: cursor_loop: GET ${path} returned the same page twice in a row (page ${page}); stopping, the walk would never end\n${HINT}`;

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const cancelled = (n: number) => ({
  id: uuid(100 + n),
  type: 'order.cancelled',
  occurredAt: `2026-11-24T10:00:0${n}.000000Z`,
  environment: 'production',
  data: { id: uuid(n), status: 'CANCELLED', coinPrice: `${n}0`, currency: { name: 'Coins', symbol: 'C' }, reference: `R${n}`, brandId: uuid(900) },
});

/** The feed A→B→A: three pages, the third handing back A. */
function loopingFeed(query: (after?: string) => string) {
  api
    .on(`GET /events${query()}`, { body: { items: [cancelled(1)], nextCursor: 'A' } })
    .on(`GET /events${query('A')}`, { body: { items: [cancelled(2)], nextCursor: 'B' } })
    .on(`GET /events${query('B')}`, { body: { items: [cancelled(3)], nextCursor: 'A' } });
}
const tailQuery = (after?: string) => (after ? `?after=${after}&limit=100` : '?limit=100');
const line = (value: unknown) => `${JSON.stringify(value)}\n`;

describe('cursor loops end every walk with exit 5', () => {
  it('links ls --all', async () => {
    const link = (n: number) => ({ id: uuid(n), status: 'ACTIVE' });
    api
      .on('GET /personal-links?limit=100', { body: { items: [link(1)], nextCursor: 'A' } })
      .on('GET /personal-links?limit=100&after=A', { body: { items: [link(2)], nextCursor: 'B' } })
      .on('GET /personal-links?limit=100&after=B', { body: { items: [link(3)], nextCursor: 'A' } });
    const result = await run('links', 'ls', '--all');
    expect(result).toEqual({ exitCode: 5, stdout: line(link(1)) + line(link(2)), stderr: loopLine('/personal-links', 'A', 3) });
    expect(api.requests).toHaveLength(3);
  });

  it('api --paginate', async () => {
    api
      .on('GET /campaigns', { body: { items: [{ id: 'c1' }], nextCursor: 'A' } })
      .on('GET /campaigns?after=A', { body: { items: [{ id: 'c2' }], nextCursor: 'B' } })
      .on('GET /campaigns?after=B', { body: { items: [{ id: 'c3' }], nextCursor: 'A' } });
    const result = await run('api', 'GET', '/campaigns', '--paginate');
    expect(result).toEqual({ exitCode: 5, stdout: '{"id":"c1"}\n{"id":"c2"}\n', stderr: loopLine('/campaigns', 'A', 3) });
  });

  it('events tail: the repeated page is not printed and the saved cursor stays after the last page shown', async () => {
    loopingFeed(tailQuery);
    const result = await run('events', 'tail');
    expect(result).toEqual({ exitCode: 5, stdout: line(cancelled(1)) + line(cancelled(2)), stderr: loopLine('/events', 'A', 3) });
    expect(api.requests).toHaveLength(3);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).cursors.default[api.baseUrl]).toBe('B');
  });

  it('events tail --follow: a loop while following, and the same page served again on a poll', async () => {
    loopingFeed(tailQuery);
    expect(await run('events', 'tail', '--follow', '--interval', '0.01')).toEqual({ exitCode: 5, stdout: line(cancelled(1)) + line(cancelled(2)), stderr: loopLine('/events', 'A', 3) });
    await api.stop();

    // A cursor that does not move with the same events on every poll: each poll would print them again.
    api = await new ApiDouble().start();
    env.SVC_BASE_URL = api.baseUrl;
    api.on('GET /events?limit=100', { body: { items: [cancelled(1)], nextCursor: 'c1' } }).on('GET /events?after=c1&limit=100', { body: { items: [cancelled(1)], nextCursor: 'c1' } });
    const started = performance.now();
    expect(await run('events', 'tail', '--follow', '--interval', '0.01')).toEqual({ exitCode: 5, stdout: line(cancelled(1)), stderr: samePage('/events', 2) });
    expect(api.requests).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('inspect', async () => {
    const id = uuid(1);
    api.on(`GET /personal-links/${id}`, { body: { id, status: 'ACTIVE' } });
    loopingFeed((after) => (after ? `?limit=100&after=${after}` : '?limit=100'));
    const result = await run('inspect', id);
    expect(result).toEqual({ exitCode: 5, stdout: '', stderr: loopLine('/events', 'A', 3) });
  });

  it('events stats: stops at the repeat, counts nothing of it and prints no chart', async () => {
    loopingFeed(tailQuery);
    const result = await run('events', 'stats');
    expect(result).toEqual({ exitCode: 5, stdout: '', stderr: loopLine('/events', 'A', 3) });
    expect(api.requests).toHaveLength(3);
  });

  it('events stats: the same page under a new cursor each time', async () => {
    api
      .on('GET /events?limit=100', { body: { items: [cancelled(1)], nextCursor: 'A' } })
      .on('GET /events?after=A&limit=100', { body: { items: [cancelled(1)], nextCursor: 'B' } });
    const result = await run('events', 'stats');
    expect(result).toEqual({ exitCode: 5, stdout: '', stderr: samePage('/events', 2) });
  });

  it('refunds due', async () => {
    loopingFeed(tailQuery);
    const result = await run('refunds', 'due', '--ledger', join(dir, 'ledger.jsonl'));
    expect(result.exitCode).toBe(5);
    expect(result.stdout.split('\n').filter(Boolean).map((text) => JSON.parse(text).orderId)).toEqual([uuid(1), uuid(2)]);
    expect(result.stderr).toBe(loopLine('/events', 'A', 3));
  });

  it('refunds run: pays the pages before the loop once each, keeps its cursor after them, pays nothing of the repeat', async () => {
    loopingFeed(tailQuery);
    const ledger = join(dir, 'ledger.jsonl');
    const paidLog = join(dir, 'paid.log');
    const result = await runInProcess(['refunds', 'run', '--ledger', ledger, '--exec', 'echo "$SVC_REFUND_ORDER_ID" >> "$PAID"'], { ...env, PAID: paidLog });
    expect(result.exitCode).toBe(5);
    expect(result.stderr).toBe(loopLine('/events', 'A', 3));
    expect(readFileSync(paidLog, 'utf8')).toBe(`${uuid(1)}\n${uuid(2)}\n`);
    expect(readFileSync(ledger, 'utf8').split('\n').filter(Boolean).map((text) => JSON.parse(text).orderId)).toEqual([uuid(1), uuid(2)]);
    expect(JSON.parse(readFileSync(`${ledger}.cursor`, 'utf8')).cursor).toBe('B');
    expect(existsSync(`${ledger}.lock`)).toBe(false);
  });
});
