/**
 * What only a process shows about `svc refunds run`: `--follow` pays refunds as they appear and
 * ends with 130 on SIGINT; a runner killed with SIGKILL mid-payment leaves a stale lock and at most
 * one repeat, and the next run finishes the work with the ledger holding each orderId once.
 * The sandbox runs in-process; only the runner is spawned.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { cancelOrder, placeOrders } from '../helpers/orders.js';
import { BIN, tempConfigDir } from '../helpers/svc.js';
import { startSandbox, type TestSandbox } from '../sandbox/helpers.js';

let sandbox: TestSandbox;
let dir: string;

beforeEach(async () => {
  sandbox = await startSandbox();
  dir = tempConfigDir();
});
afterEach(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

/** Waits for a condition; on a time-out says what the runner printed, so a failure explains itself. */
async function until(condition: () => boolean, what: string, runnerStderr: () => string = () => '', timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the runner's stderr:\n${runnerStderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function runner(args: string[]) {
  const env = { ...process.env, NO_COLOR: '1', SVC_CONFIG_DIR: dir, SVC_BASE_URL: sandbox.info.baseUrl, SVC_API_KEY: sandbox.apiKey('full') };
  const child = spawn(process.execPath, [BIN, 'refunds', 'run', '--ledger', join(dir, 'ledger.jsonl'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited, stderr: () => stderr };
}

it('--follow pays refunds as they are cancelled and ends with 130 on SIGINT', async () => {
  const paid = join(dir, 'paid.log');
  const [a, b] = await placeOrders(sandbox, 2);
  await cancelOrder(sandbox, a.id);
  const follow = runner(['--follow', '--interval', '0.1', '--exec', `echo "$SVC_REFUND_ORDER_ID" >> '${paid}'`]);
  await until(() => lines(paid).length === 1, 'the first refund', follow.stderr);
  await cancelOrder(sandbox, b.id);
  await until(() => lines(paid).length === 2, 'the refund cancelled while following', follow.stderr);
  follow.child.kill('SIGINT');
  const { code } = await follow.exited;
  expect(code).toBe(130);
  expect(lines(paid)).toEqual([a.id, b.id]);
  expect(lines(join(dir, 'ledger.jsonl')).map((line) => JSON.parse(line).orderId)).toEqual([a.id, b.id]);
  expect(existsSync(join(dir, 'ledger.jsonl.lock'))).toBe(false);
});

it('a runner killed with SIGKILL mid-payment: the next run takes its lock, repeats at most that one, records each once', async () => {
  const paid = join(dir, 'paid.log');
  const orders = await placeOrders(sandbox, 3);
  for (const order of orders) await cancelOrder(sandbox, order.id);
  const gate = join(dir, 'gate');
  // Pays (appends), then hangs on the second refund until the gate exists: a kill lands after a payment.
  const command = `echo "$SVC_REFUND_ORDER_ID" >> '${paid}'; if [ "$SVC_REFUND_ORDER_ID" = "${orders[1].id}" ]; then while [ ! -f '${gate}' ]; do sleep 0.02; done; fi`;
  const first = runner(['--exec', command]);
  await until(() => lines(paid).length === 2, 'the second payment', first.stderr);
  first.child.kill('SIGKILL');
  expect((await first.exited).signal).toBe('SIGKILL');
  expect(existsSync(join(dir, 'ledger.jsonl.lock'))).toBe(true);
  writeFileSync(gate, '');
  const second = runner(['--exec', `echo "$SVC_REFUND_ORDER_ID" >> '${paid}'`]);
  expect((await second.exited).code).toBe(0);
  const ids = orders.map((order) => order.id);
  expect(lines(paid)).toEqual([ids[0], ids[1], ids[1], ids[2]]);
  expect(lines(join(dir, 'ledger.jsonl')).map((line) => JSON.parse(line).orderId)).toEqual(ids);
});
