#!/usr/bin/env node
/**
 * Refunds under SIGKILL (not part of npm test; run after `npm run build`):
 *   node bench/refunds-kill.mjs [--orders 120] [--kills 20] [--seed 1]
 *
 * Starts `svc sandbox`, places and cancels many orders, then runs `svc refunds run --exec CMD` with a
 * recording command (it appends the orderId to paid.log, then takes a moment) and SIGKILLs the runner
 * at random moments — during start-up, mid-payment, between payments — `--kills` times, rerunning
 * until a run finishes. Then it checks: every cancelled order was paid, the ledger holds each orderId
 * exactly once (and nothing else), and repeated payments never exceed the number of kills.
 * Prints one JSON line of figures; exits 1 if a check fails.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const ORDERS = arg('orders', 120);
const KILLS = arg('kills', 20);
let seed = arg('seed', 1);
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);

const BIN = resolve(import.meta.dirname, '../bin/svc.js');
const dir = mkdtempSync(join(tmpdir(), 'svc-refunds-kill-'));
const paidLog = join(dir, 'paid.log');
const ledgerFile = join(dir, 'ledger.jsonl');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function startSandbox() {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--no-profile', '--seed', '3'], {
    env: { ...process.env, SVC_CONFIG_DIR: dir, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const line = await new Promise((resolveLine, reject) => {
    createInterface({ input: child.stdout }).once('line', resolveLine);
    child.once('exit', () => reject(new Error('sandbox exited')));
  });
  return { child, info: JSON.parse(line) };
}

async function call(url, method, body, headers = {}) {
  const res = await fetch(url, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Places ORDERS orders with the `full` key and has the team cancel each; returns their ids. */
async function cancelledOrders(info) {
  const key = info.keys.find((k) => k.name === 'full').apiKey;
  const auth = { authorization: `Bearer ${key}` };
  const stores = await call(`${info.baseUrl}/reward-stores?limit=100`, 'GET', undefined, auth);
  const store = stores.items.find((s) => s.phase === 'LIVE');
  const brandId = store.brandIds[0];
  const read = await call(`${info.baseUrl}/reward-stores/${store.id}?brandId=${brandId}&country=DE`, 'GET', undefined, auth);
  const gift = read.sections.flatMap((s) => s.items).find((g) => g.dimensions.length === 0);
  const ids = [];
  for (let i = 0; i < ORDERS; i++) {
    const order = await call(`${info.baseUrl}/reward-store-orders`, 'POST', {
      storeId: store.id, brandId, productId: gift.productId, variations: {}, coinPrice: gift.coinPrice,
      recipient: { name: 'Bench Player', phone: '+4915112345678', address: { street: 'Teststr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' } },
    }, { ...auth, 'idempotency-key': `kill-bench-${i}` });
    await call(`${info.adminUrl}/orders/${order.id}/cancel`, 'POST', {});
    ids.push(order.id);
  }
  return { ids, key };
}

const lines = (file) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '') : []);

const { child: sandbox, info } = await startSandbox();
const started = Date.now();
try {
  const { ids, key } = await cancelledOrders(info);
  const env = { ...process.env, SVC_CONFIG_DIR: dir, SVC_BASE_URL: info.baseUrl, SVC_API_KEY: key, NO_COLOR: '1' };
  // The payment is the append; the pause after it widens the window between "paid" and "recorded".
  const command = `read -r refund; echo "$SVC_REFUND_ORDER_ID" >> '${paidLog}'; sleep 0.02`;
  let kills = 0;
  let runs = 0;
  let finished = false;
  while (!finished) {
    runs++;
    const runner = spawn(process.execPath, [BIN, 'refunds', 'run', '--ledger', ledgerFile, '--exec', command], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    runner.stderr.on('data', (c) => (stderr += c));
    const exited = new Promise((r) => runner.once('exit', (code, signal) => r({ code, signal })));
    if (kills < KILLS) {
      // Half the kills at a random moment from spawn (start-up included), half while paying.
      if (random() < 0.5) {
        await Promise.race([sleep(200 + random() * 1500), exited]);
      } else {
        const before = lines(paidLog).length;
        const deadline = Date.now() + 10_000;
        while (runner.exitCode === null && lines(paidLog).length === before && Date.now() < deadline) await sleep(5);
        await Promise.race([sleep(random() * 300), exited]);
      }
      if (runner.exitCode === null && runner.signalCode === null) {
        runner.kill('SIGKILL');
        kills++;
      }
    }
    const { code, signal } = await exited;
    if (signal === null && code === 0) finished = true;
    else if (signal === null) throw new Error(`runner exited ${code}: ${stderr}`);
  }
  // Commands orphaned by a kill may still be finishing their append.
  await sleep(200);
  const paid = lines(paidLog);
  const ledger = lines(ledgerFile).flatMap((l) => {
    try {
      return [JSON.parse(l).orderId];
    } catch {
      return [];
    }
  });
  const unpaid = ids.filter((id) => !paid.includes(id));
  const ledgerCounts = new Map();
  for (const id of ledger) ledgerCounts.set(id, (ledgerCounts.get(id) ?? 0) + 1);
  const ledgerDuplicates = [...ledgerCounts.values()].filter((n) => n > 1).length;
  const ledgerMissing = ids.filter((id) => !ledgerCounts.has(id)).length;
  const ledgerExtra = [...ledgerCounts.keys()].filter((id) => !ids.includes(id)).length;
  const repeats = paid.length - new Set(paid).size;
  const figures = {
    orders: ids.length, kills, runs, payments: paid.length, repeats, unpaid: unpaid.length,
    ledgerLines: lines(ledgerFile).length, ledgerDuplicates, ledgerMissing, ledgerExtra,
    ok: unpaid.length === 0 && ledgerDuplicates === 0 && ledgerMissing === 0 && ledgerExtra === 0 && repeats <= kills && kills >= Math.min(KILLS, 15),
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
  console.log(JSON.stringify(figures));
  process.exitCode = figures.ok ? 0 : 1;
} finally {
  sandbox.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
