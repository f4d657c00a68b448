/**
 * Refunds see the feed's retention (30 days): orders cancelled, the sandbox's virtual clock moved 40
 * days, more cancelled. `refunds due` and `run` still list and pay what the feed holds, and name the
 * window the feed can no longer show and the cancelled orders of this key that are in neither the
 * feed nor the ledger ("cancelled, refund status unknown"), exit 1; never paid; settled with `mark`.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { cancelOrder, placeOrders, type PlacedOrder } from '../helpers/orders.js';
import { runInProcess } from '../helpers/run.js';
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
const RECORD = 'echo "$SVC_REFUND_ORDER_ID" >> "$REC"';
const recorded = () => (existsSync(env.REC) ? readFileSync(env.REC, 'utf8').split('\n').filter(Boolean) : []);
const orderIds = (stdout: string) => stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line).orderId as string);

async function advanceDays(days: number): Promise<void> {
  expect((await sandbox.admin('POST', '/clock', { advanceSeconds: days * 86_400 })).status).toBe(200);
}

/** When the team's cancellation of `order` happened: its updatedAt, as the orders list shows it. */
async function cancelledAt(order: PlacedOrder): Promise<string> {
  return (await sandbox.api('GET', `/reward-store-orders/${order.id}`)).body.updatedAt;
}

async function oldestEventAt(): Promise<string> {
  return (await sandbox.api('GET', '/events?limit=1')).body.items[0].occurredAt;
}

const unknownLine = async (order: PlacedOrder) => `  cancelled, refund status unknown: ${order.id}  ${order.coinPrice} ${order.currency.name}  (cancelled by ${await cancelledAt(order)})`;
const SETTLE = "settle each: pay it by hand, then record it with 'svc refunds mark ORDER_ID' (or mark one refunded by other means)";

it('a first run after the feed dropped cancellations: lists what the feed holds, names the rest as of unknown refund status (exit 1), pays only the former', async () => {
  const orders = await placeOrders(sandbox, 5);
  await cancelOrder(sandbox, orders[0].id);
  await cancelOrder(sandbox, orders[1].id);
  await advanceDays(40);
  for (const order of orders.slice(2)) await cancelOrder(sandbox, order.id);
  const lost = [orders[0], orders[1]];
  const report = [
    `warning: the event feed keeps 30 days and now starts at ${await oldestEventAt()}: events before it can no longer be read, and refunds cancelled then are not in it`,
    `2 cancelled orders of this key are in neither the feed nor the ledger (GET /reward-store-orders?status=CANCELLED); svc does not pay them:`,
    ...(await Promise.all(lost.map(unknownLine))),
    SETTLE,
  ];

  const due = await run('refunds', 'due', '--ledger', LEDGER());
  expect({ exitCode: due.exitCode, due: orderIds(due.stdout), stderr: due.stderr }).toEqual({ exitCode: 1, due: orders.slice(2).map((o) => o.id), stderr: `${report.join('\n')}\n` });

  const paid = await run('refunds', 'run', '--ledger', LEDGER(), '--exec', RECORD);
  expect({ exitCode: paid.exitCode, stderr: paid.stderr }).toEqual({ exitCode: 1, stderr: `${report.join('\n')}\n3 refunds paid; ledger ${LEDGER()}\n` });
  expect(recorded()).toEqual(orders.slice(2).map((o) => o.id));

  // Settled by hand: marked, and nothing is due or unknown any more.
  expect((await run('refunds', 'mark', '--ledger', LEDGER(), ...lost.map((o) => o.id))).exitCode).toBe(0);
  expect(await run('refunds', 'due', '--ledger', LEDGER())).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  expect(recorded()).toHaveLength(3);
});

it('a refund cursor older than the feed: names the window it can no longer read, once; the unknown order stays listed until marked', async () => {
  const orders = await placeOrders(sandbox, 5);
  await cancelOrder(sandbox, orders[0].id);
  await cancelOrder(sandbox, orders[1].id);
  expect((await run('refunds', 'run', '--ledger', LEDGER(), '--exec', RECORD)).exitCode).toBe(0);
  const cursorEventAt = await cancelledAt(orders[1]);
  await cancelOrder(sandbox, orders[2].id);
  await advanceDays(40);
  await cancelOrder(sandbox, orders[3].id);
  await cancelOrder(sandbox, orders[4].id);
  const oldest = await oldestEventAt();
  const unknown = [
    `1 cancelled order of this key is in neither the feed nor the ledger (GET /reward-store-orders?status=CANCELLED); svc does not pay it:`,
    await unknownLine(orders[2]),
    SETTLE,
  ];
  const window = `warning: the event feed keeps 30 days: the events from ${cursorEventAt} to ${oldest} can no longer be read, and refunds cancelled then are not in it`;

  const due = await run('refunds', 'due', '--ledger', LEDGER());
  expect({ exitCode: due.exitCode, due: orderIds(due.stdout), stderr: due.stderr }).toEqual({ exitCode: 1, due: [orders[3].id, orders[4].id], stderr: `${[window, ...unknown].join('\n')}\n` });

  const paid = await run('refunds', 'run', '--ledger', LEDGER(), '--exec', RECORD);
  expect({ exitCode: paid.exitCode, stderr: paid.stderr }).toEqual({ exitCode: 1, stderr: `${[window, ...unknown].join('\n')}\n2 refunds paid; ledger ${LEDGER()}\n` });
  expect(recorded()).toEqual([orders[0], orders[1], orders[3], orders[4]].map((o) => o.id));

  // The window is told once; the order of unknown refund status stays listed until it is settled.
  const again = await run('refunds', 'due', '--ledger', LEDGER());
  expect(again).toEqual({ exitCode: 1, stdout: '', stderr: `${[`warning: the event feed keeps 30 days and now starts at ${oldest}: events before it can no longer be read, and refunds cancelled then are not in it`, ...unknown].join('\n')}\n` });
  expect((await run('refunds', 'mark', '--ledger', LEDGER(), orders[2].id)).exitCode).toBe(0);
  expect(await run('refunds', 'due', '--ledger', LEDGER())).toEqual({ exitCode: 0, stdout: '', stderr: '' });
});

it('a key without REWARD_STORES places no orders: nothing to reconcile, nothing said', async () => {
  const due = await runInProcess(['refunds', 'due', '--ledger', LEDGER()], { ...env, SVC_API_KEY: sandbox.apiKey('links') });
  expect(due).toEqual({ exitCode: 0, stdout: '', stderr: '' });
});
