import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiDouble } from '../helpers/double.js';
import { runInProcess } from '../helpers/run.js';
import { jsonLines } from '../helpers/lines.js';
import { cancelOrder, placeOrders as placeFor } from '../helpers/orders.js';
import { startSandboxWithConfig, type TestSandbox } from '../sandbox/helpers.js';

let sandbox: TestSandbox;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  ({ sandbox, dir, env } = await startSandboxWithConfig((config) => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', REC: join(config, 'paid.log') })));
});
afterEach(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (...argv: string[]) => runInProcess(argv, env);
const LEDGER = () => join(dir, 'ledger.jsonl');
/** The recording command: the refund's stdin and environment, one line each per payment. */
const RECORD = 'printf "%s %s %s " "$SVC_REFUND_ORDER_ID" "$SVC_REFUND_COIN_PRICE" "$SVC_REFUND_CURRENCY" >> "$REC"; cat >> "$REC"';
const recorded = () => (existsSync(env.REC) ? readFileSync(env.REC, 'utf8').split('\n').filter(Boolean) : []);

const placeOrders = (count: number) => placeFor(sandbox, count);
const cancel = (orderId: string) => cancelOrder(sandbox, orderId);

/** The due records the feed implies: one per order.cancelled, first occurrence, in feed order. */
async function expectedDue() {
  const feed = await sandbox.api('GET', '/events?limit=100');
  return feed.body.items
    .filter((e: { type: string }) => e.type === 'order.cancelled')
    .map((e: { id: string; occurredAt: string; data: Record<string, unknown> }) => ({
      orderId: e.data.id,
      coinPrice: e.data.coinPrice,
      currency: e.data.currency,
      reference: e.data.reference,
      brandId: e.data.brandId,
      eventId: e.id,
      cancelledAt: e.occurredAt,
    }));
}

describe('refunds due', () => {
  it('lists each cancelled order of the feed, not the other order events, and moves nothing', async () => {
    const [a, b, c] = await placeOrders(3);
    await cancel(a.id);
    expect((await sandbox.admin('POST', `/orders/${b.id}/ship`, {})).status).toBe(200);
    await cancel(c.id);
    const expected = await expectedDue();
    expect(expected.map((r: { orderId: string }) => r.orderId)).toEqual([a.id, c.id]);
    const due = await run('refunds', 'due', '--ledger', LEDGER());
    expect(due).toEqual({ exitCode: 0, stdout: expected.map((r: unknown) => `${JSON.stringify(r)}\n`).join(''), stderr: '' });
    // Nothing moved: no ledger, no cursor; a second look shows the same.
    expect(existsSync(LEDGER())).toBe(false);
    expect(existsSync(`${LEDGER()}.cursor`)).toBe(false);
    expect((await run('refunds', 'due', '--ledger', LEDGER())).stdout).toBe(due.stdout);
  });

  it('shows a table with exact totals per currency', async () => {
    const orders = await placeOrders(3);
    for (const order of orders) await cancel(order.id);
    const result = await run('-o', 'table', 'refunds', 'due', '--ledger', LEDGER());
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    const total = orders.reduce((sum: bigint, order: { coinPrice: string }) => sum + BigInt(order.coinPrice), 0n);
    // Off a terminal the table is 80 wide: the order ids stay whole, so CANCELLED AT (the least needed
    // column, shown whole or not at all) gives way; the others are at their natural widths.
    const widths = [36, 10, 10, 10];
    const row = (cells: string[]) => `│${cells.map((cell, i) => ` ${cell.padEnd(widths[i])} `).join('│')}│`;
    const rule = (left: string, middle: string, right: string) => `${left}${widths.map((width) => '─'.repeat(width + 2)).join(middle)}${right}`;
    expect(result.stdout).toBe(
      [
        rule('┌', '┬', '┐'),
        row(['Order ID', 'Coin price', 'Currency', 'Reference']),
        ...orders.map((order) => row([order.id, order.coinPrice, order.currency.name, String(order.reference)])),
        rule('└', '┴', '┘'),
        `Total ${orders[0].currency.name}: ${total} in 3 refunds`,
        '',
      ].join('\n'),
    );
  });

  it('a repeated order.cancelled for one orderId is one refund (feed delivers at least once)', async () => {
    const api = await new ApiDouble().start();
    try {
      const orderId = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';
      const event = (id: string) => ({ id, type: 'order.cancelled', occurredAt: '2026-11-21T10:00:00.000000Z', environment: 'production', data: { id: orderId, coinPrice: '12.5', currency: { name: 'Coins', symbol: 'C' }, reference: 'R-1', brandId: 'b' } });
      api.on('GET /events?limit=100', { body: { items: [event('e1'), event('e2')], nextCursor: 'c1' } });
      api.on('GET /events?after=c1&limit=100', { body: { items: [], nextCursor: 'c1' } });
      // The reconciliation (refunds/gap.ts): the one cancelled order of this key is the one in the feed.
      api.on('GET /reward-store-orders?status=CANCELLED&limit=100', { body: { items: [{ id: orderId, status: 'CANCELLED', coinPrice: '12.5' }], nextCursor: null } });
      const local = { ...env, SVC_BASE_URL: api.baseUrl };
      const result = await runInProcess(['refunds', 'due', '--ledger', LEDGER()], local);
      expect(result.exitCode).toBe(0);
      expect(jsonLines(result.stdout)).toEqual([{ orderId, coinPrice: '12.5', currency: { name: 'Coins', symbol: 'C' }, reference: 'R-1', brandId: 'b', eventId: 'e1', cancelledAt: '2026-11-21T10:00:00.000000Z' }]);
      const paid = await runInProcess(['refunds', 'run', '--ledger', LEDGER(), '--exec', RECORD], local);
      expect(paid.exitCode).toBe(0);
      expect(recorded()).toHaveLength(1);
    } finally {
      await api.stop();
    }
  });
});

describe('refunds run', () => {
  it('pays each due refund exactly once with the refund on stdin and in the environment; a rerun pays nothing', async () => {
    const orders = await placeOrders(3);
    for (const order of orders) await cancel(order.id);
    const expected = await expectedDue();
    const first = await run('refunds', 'run', '--ledger', LEDGER(), '--exec', RECORD);
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toBe(`3 refunds paid; ledger ${LEDGER()}\n`);
    expect(recorded()).toEqual(expected.map((r: { orderId: string; coinPrice: string; currency: { name: string } }) => `${r.orderId} ${r.coinPrice} ${r.currency.name} ${JSON.stringify(r)}`));
    const entries = jsonLines(first.stdout);
    expect(entries.map((e) => [e.orderId, e.coinPrice, e.currency, e.eventId])).toEqual(expected.map((r: Record<string, unknown>) => [r.orderId, r.coinPrice, r.currency, r.eventId]));
    expect(readFileSync(LEDGER(), 'utf8')).toBe(first.stdout);
    expect(statSync(LEDGER()).mode & 0o777).toBe(0o600);

    const again = await run('refunds', 'run', '--ledger', LEDGER(), '--exec', RECORD);
    expect(again).toEqual({ exitCode: 0, stdout: '', stderr: `0 refunds paid; ledger ${LEDGER()}\n` });
    // Even from the start of the feed, the ledger holds: nothing is due.
    expect(await run('refunds', 'due', '--from-start', '--ledger', LEDGER())).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(recorded()).toHaveLength(3);
    expect((await run('refunds', 'ls', '--ledger', LEDGER())).stdout).toBe(first.stdout);
  });

  it('a failing command records nothing for its refund, exits 1, and the refund stays due', async () => {
    const [a, b, c] = await placeOrders(3);
    for (const order of [a, b, c]) await cancel(order.id);
    const failOnB = `if [ "$SVC_REFUND_ORDER_ID" = "${b.id}" ]; then echo "wallet down" >&2; exit 3; fi; ${RECORD}`;
    const failed = await run('refunds', 'run', '--ledger', LEDGER(), '--exec', failOnB);
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toBe(
      `wallet down\nerror: refund_failed: --exec failed for order ${b.id} (exit 3); nothing was recorded for it and it stays due\nhint: 1 refund was paid and recorded before it\n`,
    );
    expect(jsonLines(readFileSync(LEDGER(), 'utf8')).map((e) => e.orderId)).toEqual([a.id]);
    // The page held an unpaid refund: the cursor did not pass it.
    expect(existsSync(`${LEDGER()}.cursor`)).toBe(false);
    expect(jsonLines((await run('refunds', 'due', '--ledger', LEDGER())).stdout).map((r) => r.orderId)).toEqual([b.id, c.id]);

    const rest = await run('refunds', 'run', '--ledger', LEDGER(), '--exec', RECORD);
    expect(rest.exitCode).toBe(0);
    expect(recorded().map((line) => line.split(' ')[0])).toEqual([a.id, b.id, c.id]);
  });

  it('two runners at once: one pays, the other waits, then refuses without paying', async () => {
    const orders = await placeOrders(2);
    for (const order of orders) await cancel(order.id);
    const go = join(dir, 'go');
    const started = join(dir, 'started');
    // The first runner's command holds it mid-payment until the test lets it go.
    const slow = `touch "${started}"; while [ ! -f "${go}" ]; do sleep 0.01; done; ${RECORD}`;
    const first = run('refunds', 'run', '--ledger', LEDGER(), '--exec', slow);
    while (!existsSync(started)) await new Promise((r) => setTimeout(r, 10));
    const second = await run('refunds', 'run', '--ledger', LEDGER(), '--exec', RECORD);
    writeFileSync(go, '');
    const firstResult = await first;
    expect(second).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `… another refunds run (pid ${process.pid}) holds the ledger; waiting up to 2s\nerror: ledger_locked: another refunds run (pid ${process.pid}) holds the ledger; nothing was paid\nhint: one runner per ledger: wait for it to finish, or stop it (lock file ${LEDGER()}.lock)\n`,
    });
    expect(firstResult.exitCode).toBe(0);
    expect(recorded().map((line) => line.split(' ')[0])).toEqual(orders.map((o: { id: string }) => o.id));
    expect(existsSync(`${LEDGER()}.lock`)).toBe(false);
  });

  it('takes over the lock of a runner that was killed (its pid is dead)', async () => {
    const [order] = await placeOrders(1);
    await cancel(order.id);
    writeFileSync(`${LEDGER()}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, host: (await import('node:os')).hostname(), token: 'dead', since: '2026-01-01T00:00:00Z' }));
    const result = await run('refunds', 'run', '--ledger', LEDGER(), '--exec', RECORD);
    expect(result.exitCode).toBe(0);
    expect(recorded()).toHaveLength(1);
    expect(existsSync(`${LEDGER()}.lock`)).toBe(false);
  });

  it('tolerates a torn last line: ignored, reported once, and the next record starts on a fresh line', async () => {
    const [a, b, c] = await placeOrders(3);
    for (const order of [a, b, c]) await cancel(order.id);
    const kept = { orderId: a.id, coinPrice: a.coinPrice, currency: a.currency, eventId: null, refundedAt: '2026-11-21T10:00:00.000Z' };
    const torn = `{"orderId":"${b.id}","coinPr`;
    writeFileSync(LEDGER(), `${JSON.stringify(kept)}\n${torn}`, { mode: 0o600 });
    const ls = await run('refunds', 'ls', '--ledger', LEDGER());
    const note = `note: ledger ${LEDGER()}: ignoring a torn last line (a write cut off by a crash); the next record starts on a fresh line\n`;
    expect(ls).toEqual({ exitCode: 0, stdout: `${JSON.stringify(kept)}\n`, stderr: note });

    // The torn record was never complete: its refund is paid (again), and reported once in this run.
    const paid = await run('refunds', 'run', '--ledger', LEDGER(), '--exec', RECORD);
    expect(paid.exitCode).toBe(0);
    expect(paid.stderr).toBe(`${note}2 refunds paid; ledger ${LEDGER()}\n`);
    expect(recorded().map((line) => line.split(' ')[0])).toEqual([b.id, c.id]);
    const entries = jsonLines(paid.stdout);
    expect(readFileSync(LEDGER(), 'utf8')).toBe(`${JSON.stringify(kept)}\n${torn}\n${entries.map((e) => `${JSON.stringify(e)}\n`).join('')}`);
    const after = await run('refunds', 'ls', '--ledger', LEDGER());
    expect(after).toEqual({
      exitCode: 0,
      stdout: [kept, ...entries].map((e) => `${JSON.stringify(e)}\n`).join(''),
      stderr: `note: ledger ${LEDGER()}: 1 unreadable line ignored (left by an interrupted write)\n`,
    });
  });

  it('keeps the ledger and the refund cursor per profile and base URL in the config directory', async () => {
    const [order] = await placeOrders(1);
    await cancel(order.id);
    const paid = await run('refunds', 'run', '--exec', RECORD);
    expect(paid.exitCode).toBe(0);
    const ledgerPath = paid.stderr.replace(/^1 refund paid; ledger (.*)\n$/, '$1');
    expect(ledgerPath).toMatch(new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/refunds/default-[0-9a-f]{12}\\.jsonl$`));
    expect(jsonLines((await run('refunds', 'ls')).stdout).map((e) => e.orderId)).toEqual([order.id]);
    expect(statSync(ledgerPath).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(`${ledgerPath}.cursor`, 'utf8')).baseUrl).toBe(sandbox.info.baseUrl);
    // Another profile has a ledger of its own: the refund is due there.
    const other = await runInProcess(['--profile', 'other', 'refunds', 'due'], env);
    expect(jsonLines(other.stdout).map((r) => r.orderId)).toEqual([order.id]);
  });
});

describe('refunds mark and ls', () => {
  it('records refunds made by other means with the price from the feed; run never pays them', async () => {
    const [a, b] = await placeOrders(2);
    await cancel(a.id);
    await cancel(b.id);
    const [dueA] = await expectedDue();
    const marked = await run('refunds', 'mark', a.id, '--ledger', LEDGER());
    expect(marked.exitCode).toBe(0);
    const [entry] = jsonLines(marked.stdout);
    expect(entry).toEqual({ orderId: a.id, coinPrice: a.coinPrice, currency: a.currency, eventId: dueA.eventId, refundedAt: entry.refundedAt });
    const again = await run('refunds', 'mark', a.id, '--ledger', LEDGER());
    expect(again).toEqual({ exitCode: 0, stdout: '', stderr: `${a.id}: already in the ledger; left as it is\n` });
    expect((await run('refunds', 'run', '--ledger', LEDGER(), '--exec', RECORD)).exitCode).toBe(0);
    expect(recorded().map((line) => line.split(' ')[0])).toEqual([b.id]);
    expect(jsonLines((await run('refunds', 'ls', '--ledger', LEDGER())).stdout).map((e) => e.orderId)).toEqual([a.id, b.id]);
  });

  it('an order unknown to the feed and to this key is recorded with --force, with null price and currency', async () => {
    const unknown = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';
    // Without --force it is refused (Trust what svc reads; test/commands/trust.test.ts).
    const marked = await run('refunds', 'mark', '--force', unknown, '--ledger', LEDGER());
    expect(marked.exitCode).toBe(0);
    const [entry] = jsonLines(marked.stdout);
    expect(entry).toEqual({ orderId: unknown, coinPrice: null, currency: null, eventId: null, refundedAt: entry.refundedAt });
  });

  it('refuses a malformed order id before anything is recorded (exit 2)', async () => {
    const result = await run('refunds', 'mark', '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11', 'not-an-id', '--ledger', LEDGER());
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: 'error: usage_error: ORDER_ID: not a valid id (expected a UUID): not-an-id\n' });
    expect(existsSync(LEDGER())).toBe(false);
  });

  it('run refuses a missing --exec (exit 2)', async () => {
    const result = await run('refunds', 'run', '--ledger', LEDGER());
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: 'error: usage_error: --exec: required: the command that pays one refund (it reads the refund as JSON on stdin)\n' });
  });
});

describe('the runner lock', () => {
  it.runIf(process.platform === 'linux')('a lock left by a dead runner whose pid now belongs to a younger process is taken over (Linux /proc)', async () => {
    const [order] = await placeOrders(1);
    await cancel(order.id);
    // This test's own process stands in for the process that reused the pid: it started after the lock.
    const host = (await import('node:os')).hostname();
    writeFileSync(`${LEDGER()}.lock`, JSON.stringify({ pid: process.ppid, host, token: 'old', since: '2000-01-01T00:00:00.000Z' }));
    const result = await run('refunds', 'run', '--ledger', LEDGER(), '--exec', RECORD);
    expect(result.exitCode).toBe(0);
    expect(recorded()).toHaveLength(1);
  });

  it('a live holder with a recent lock is respected: nothing is paid', async () => {
    const [order] = await placeOrders(1);
    await cancel(order.id);
    const host = (await import('node:os')).hostname();
    writeFileSync(`${LEDGER()}.lock`, JSON.stringify({ pid: process.ppid, host, token: 'live', since: new Date().toISOString() }));
    const result = await run('refunds', 'run', '--ledger', LEDGER(), '--exec', RECORD);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`error: ledger_locked: another refunds run (pid ${process.ppid}) holds the ledger; nothing was paid\n`);
    expect(recorded()).toEqual([]);
  });
});
