/**
 * Trust what svc reads, at the command layer against the in-process sandbox: `refunds mark` checks
 * each order, a refused saved cursor is explained with the command that starts over, `--from-start`
 * starts over without paying twice, and bulk exits 1 when its output closes early.
 */
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { IOStreams } from '../../src/core/io.js';
import { tempDir } from '../helpers/cleanup.js';
import { cancelOrder, placeOrders } from '../helpers/orders.js';
import { runInProcess } from '../helpers/run.js';
import { startSandboxWithConfig, type TestSandbox } from '../sandbox/helpers.js';

let sandbox: TestSandbox;
let dir: string;
let env: Record<string, string>;
beforeEach(async () => {
  ({ sandbox, dir, env } = await startSandboxWithConfig((config) => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', PAID: join(config, 'paid.log') })));
});
afterEach(async () => {
  await sandbox.close();
});

const run = (...argv: string[]) => runInProcess(argv, env);
const LEDGER = () => join(dir, 'ledger.jsonl');
const PAY = 'echo "$SVC_REFUND_ORDER_ID" >> "$PAID"';
const paid = () => (existsSync(env.PAID) ? readFileSync(env.PAID, 'utf8').split('\n').filter(Boolean) : []);
const ledgerIds = () => (existsSync(LEDGER()) ? readFileSync(LEDGER(), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line).orderId) : []);

describe('refunds mark checks each order', () => {
  it('an id no order of this key has: exit 1 naming it, nothing recorded; --force records it', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const result = await run('refunds', 'mark', unknown, '--ledger', LEDGER());
    expect(result).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `error: not_refundable: nothing was recorded: ${unknown} is not an order of this key\nhint: only cancelled orders of this key are refunded; to record a refund made for another reason anyway: svc refunds mark --force ORDER_ID…\n`,
    });
    expect(existsSync(LEDGER())).toBe(false);
    const forced = await run('refunds', 'mark', '--force', unknown, '--ledger', LEDGER());
    expect(forced.exitCode).toBe(0);
    expect(forced.stderr).toBe(`note: ${unknown} is not an order of this key; recording it as --force asks\n`);
    expect(ledgerIds()).toEqual([unknown]);
  });

  it('one order not cancelled among cancelled ones: exit 1 naming it with its status, nothing at all recorded', async () => {
    const [a, b] = await placeOrders(sandbox, 2);
    await cancelOrder(sandbox, a.id);
    const result = await run('refunds', 'mark', a.id, b.id, '--ledger', LEDGER());
    expect(result.exitCode).toBe(1);
    expect(result.stderr.split('\n')[0]).toBe(`error: not_refundable: nothing was recorded: ${b.id} is ${b.status}, not CANCELLED`);
    expect(existsSync(LEDGER())).toBe(false);
    // The cancelled one alone is recorded, with its price.
    const marked = await run('refunds', 'mark', a.id, '--ledger', LEDGER());
    expect(marked.exitCode).toBe(0);
    expect(JSON.parse(marked.stdout)).toMatchObject({ orderId: a.id, coinPrice: a.coinPrice, currency: a.currency });
  });
});

describe('a refused saved cursor is explained; --from-start starts over', () => {
  it('events tail --resume: says whose cursor and how to start over; --from-start reads from the oldest event and replaces it', async () => {
    await placeOrders(sandbox, 1);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: {}, cursors: { default: { [sandbox.info.baseUrl]: 'from-another-run' } } }));
    const refused = await run('events', 'tail', '--resume');
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toBe('');
    const [first, ...rest] = refused.stderr.trimEnd().split('\n');
    expect(first).toMatch(/^error: invalid_request: the saved cursor of profile default was refused \(.+\): it belongs to another feed, e\.g\. a sandbox restarted since it was saved$/);
    expect(rest.at(-1)).toBe('hint: start over from the oldest event: svc events tail --resume --from-start');

    const all = (await sandbox.api('GET', '/events?limit=100')).body;
    const fresh = await run('events', 'tail', '--resume', '--from-start');
    expect(fresh.exitCode).toBe(0);
    expect(fresh.stdout).toBe(all.items.map((event: unknown) => `${JSON.stringify(event)}\n`).join(''));
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).cursors.default[sandbox.info.baseUrl]).toBe(all.nextCursor);
    expect((await run('events', 'tail', '--resume')).stdout).toBe('');
  });

  it('refunds: a refused refund cursor names due and run --from-start; run --from-start pays only what the ledger lacks (0 double pays)', async () => {
    const [a, b, c] = await placeOrders(sandbox, 3);
    await cancelOrder(sandbox, a.id);
    await cancelOrder(sandbox, b.id);
    expect((await run('refunds', 'run', '--ledger', LEDGER(), '--exec', PAY)).exitCode).toBe(0);
    expect(paid()).toEqual([a.id, b.id]);
    // The sandbox "restarted": the saved refund cursor belongs to another feed.
    writeFileSync(`${LEDGER()}.cursor`, `${JSON.stringify({ baseUrl: sandbox.info.baseUrl, cursor: 'from-another-run' })}\n`);
    await cancelOrder(sandbox, c.id);
    for (const verb of ['due', 'run']) {
      const refused = await run('refunds', verb, '--ledger', LEDGER(), ...(verb === 'run' ? ['--exec', PAY] : []));
      expect(refused.exitCode).toBe(1);
      const lines = refused.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(new RegExp(`^error: invalid_request: the refund cursor ${LEDGER()}\\.cursor was refused \\(.+\\): it belongs to another feed, e\\.g\\. a sandbox restarted since it was saved$`));
      expect(lines.at(-1)).toBe(
        `hint: start over from the oldest event: svc refunds due --from-start --ledger ${LEDGER()} to look, svc refunds run --from-start --ledger ${LEDGER()} --exec ${verb === 'run' ? `'${PAY}'` : '…'} to pay (the ledger still holds: nothing is paid twice)`,
      );
    }
    expect(paid()).toEqual([a.id, b.id]);
    const due = await run('refunds', 'due', '--from-start', '--ledger', LEDGER());
    expect(due.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line).orderId)).toEqual([c.id]);
    const again = await run('refunds', 'run', '--from-start', '--ledger', LEDGER(), '--exec', PAY);
    expect(again.exitCode).toBe(0);
    expect(paid()).toEqual([a.id, b.id, c.id]);
    expect(ledgerIds()).toEqual([a.id, b.id, c.id]);
    const feed = (await sandbox.api('GET', '/events?limit=100')).body;
    expect(JSON.parse(readFileSync(`${LEDGER()}.cursor`, 'utf8')).cursor).toBe(feed.nextCursor);
    // And once more: nothing is due, nothing paid twice.
    expect((await run('refunds', 'run', '--from-start', '--ledger', LEDGER(), '--exec', PAY)).exitCode).toBe(0);
    expect(paid()).toEqual([a.id, b.id, c.id]);
  });
});

/** A file of 60 rows for one ACTIVE campaign with one brand, and how many links there are before. */
async function sixtyRows(): Promise<{ file: string; linksBefore: number }> {
  const campaigns = (await sandbox.api('GET', '/campaigns')).body.items as { id: string; brandIds: string[]; status: string }[];
  const linksBefore = ((await sandbox.api('GET', '/personal-links?limit=100')).body.items as unknown[]).length;
  const campaignId = campaigns.find((campaign) => campaign.brandIds.length === 1 && campaign.status === 'ACTIVE')!.id;
  const file = join(dir, 'big.csv');
  writeFileSync(file, ['campaignId,fullName', ...Array.from({ length: 60 }, (_, i) => `${campaignId},Player ${i + 1}`)].join('\n'));
  return { file, linksBefore };
}

describe('bulk when its output closes early (`… | head -1`)', () => {
  it('exits 1 and the summary says how many rows were not tried', async () => {
    const { file, linksBefore } = await sixtyRows();
    // A reader that takes one line, then goes away: later writes fail with EPIPE, as with `| head -1`.
    let out = '';
    let writes = 0;
    const stdout = new Writable({
      write(chunk, _encoding, done) {
        if (writes++ === 0) {
          out += chunk;
          done();
        } else done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (chunk) => (err += chunk));
    const stdin = new PassThrough();
    stdin.end();
    const started = performance.now();
    const exitCode = await main(['links', 'create', '--from-file', file, '--concurrency', '1'], { stdin, stdout, stderr, env: { NO_COLOR: '1', ...env } } as unknown as IOStreams);
    await new Promise((resolve) => setImmediate(resolve));
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(exitCode).toBe(1);
    expect(JSON.parse(out)).toMatchObject({ row: 1, ok: true });
    const created = ((await sandbox.api('GET', '/personal-links?limit=100')).body.items as unknown[]).length - linksBefore;
    const match = /^created \d+, replayed 0, failed 0 of \d+ rows in \d+\.\ds \(output closed: (\d+) rows not tried; run the same file again to finish: rows already done replay\)\n$/.exec(err);
    expect(match, err).not.toBeNull();
    // Every row was either sent (and created, unless it was the one in flight) or counted as not tried.
    const notTried = Number(match![1]);
    expect(notTried + created).toBeGreaterThanOrEqual(59);
    expect(notTried + created).toBeLessThanOrEqual(60);
    expect(notTried).toBeGreaterThan(50);
  });
});

describe('bulk when its output closes with rows in flight', () => {
  it('the rows already sent finish and are counted: created in the summary is what the service created, and every row is counted once', async () => {
    const { file, linksBefore } = await sixtyRows();
    let writes = 0;
    const stdout = new Writable({
      write(_chunk, _encoding, done) {
        if (writes++ === 0) done();
        else done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (chunk) => (err += chunk));
    const stdin = new PassThrough();
    stdin.end();
    const exitCode = await main(['links', 'create', '--from-file', file, '--concurrency', '8'], { stdin, stdout, stderr, env: { NO_COLOR: '1', ...env } } as unknown as IOStreams);
    await new Promise((resolve) => setImmediate(resolve));
    expect(exitCode).toBe(1);
    const created = ((await sandbox.api('GET', '/personal-links?limit=100')).body.items as unknown[]).length - linksBefore;
    const match = /^created (\d+), replayed 0, failed 0 of (\d+) rows in \d+\.\ds \(output closed: (\d+) rows not tried; run the same file again to finish: rows already done replay\)\n$/.exec(err);
    expect(match, err).not.toBeNull();
    const [summaryCreated, answered, notTried] = match!.slice(1).map(Number);
    expect(summaryCreated).toBe(created);
    expect(answered).toBe(created);
    expect(answered + notTried).toBe(60);
    expect(created).toBeGreaterThan(1);
  });
});

describe('a hostile local user: links planted where svc writes, through whole commands', () => {
  const refusal = (path: string) => `error: usage_error: ${path} is a symbolic link; svc never writes through a link (nothing was written; replace the link with a regular file or remove it)\n`;

  it('refunds run with a link at the ledger, the refund cursor or the lock: exit 2 naming it, nothing paid, nothing written through it', async () => {
    const [order] = await placeOrders(sandbox, 1);
    await cancelOrder(sandbox, order.id);
    for (const path of [LEDGER(), `${LEDGER()}.cursor`, `${LEDGER()}.lock`]) {
      const victim = join(tempDir(), 'victim');
      writeFileSync(victim, 'precious\n');
      symlinkSync(victim, path);
      const started = performance.now();
      const result = await run('refunds', 'run', '--ledger', LEDGER(), '--exec', PAY);
      expect(performance.now() - started).toBeLessThan(3_000);
      expect(result).toEqual({ exitCode: 2, stdout: '', stderr: refusal(path) });
      expect(paid()).toEqual([]);
      expect(readFileSync(victim, 'utf8')).toBe('precious\n');
      (await import('node:fs')).rmSync(path);
    }
    expect((await run('refunds', 'run', '--ledger', LEDGER(), '--exec', PAY)).exitCode).toBe(0);
    expect(paid()).toEqual([order.id]);
  });

  it('events tail with a link at the config file: exit 2 naming it, the target of the link untouched', async () => {
    const victim = join(tempDir(), 'victim');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, join(dir, 'config.json'));
    const result = await run('events', 'tail');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(`error: usage_error: config file ${join(dir, 'config.json')} is a symbolic link; svc keeps keys only in a regular file (replace the link with the file itself)\n`);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('sandbox --log with a link at the log file: exit 2 naming it before it listens, nothing appended through it', async () => {
    const victim = join(tempDir(), 'victim');
    writeFileSync(victim, 'precious\n');
    const log = join(dir, 'sandbox.log');
    symlinkSync(victim, log);
    const result = await run('sandbox', '--port', '0', '--no-profile', '--log', log);
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: refusal(log) });
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });
});
