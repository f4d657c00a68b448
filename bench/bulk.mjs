#!/usr/bin/env node
// Bulk throughput: 400 rows against `svc sandbox --rate-limit 1200`, run by the real binary.
// The bar: at least 90% of the key's rate, i.e. under 22.3 s with no row failing.
// Usage: node bench/bulk.mjs [--rows 400] [--rate-limit 1200] [--client-rate 1200] [--concurrency 8] [--drain]
// (build first: npm run build). --client-rate is passed as svc's --rate; 0 leaves svc's default.
// The sandbox allows N requests in any 60 s, so on a fresh sandbox 400 rows are one burst under the
// limit; --drain first fills the minute with a throw-away backfill, so the figure is the sustained
// rate (each request then waits for the window to slide, and the client must adapt to 429 and Retry-After).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const BIN = new URL('../bin/svc.js', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '400' },
    'rate-limit': { type: 'string', default: '1200' },
    'client-rate': { type: 'string', default: '1200' },
    concurrency: { type: 'string', default: '8' },
    drain: { type: 'boolean', default: false },
  },
});
const rows = Number(values.rows);
const rateLimit = Number(values['rate-limit']);

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const sandbox = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--no-profile', '--rate-limit', String(rateLimit)], {
  env: { ...process.env, SVC_CONFIG_DIR: dir },
  stdio: ['ignore', 'pipe', 'ignore'],
});
try {
  const ready = JSON.parse(await new Promise((resolve) => createInterface({ input: sandbox.stdout }).once('line', resolve)));
  const env = { ...process.env, SVC_CONFIG_DIR: dir, SVC_BASE_URL: ready.baseUrl, SVC_API_KEY: ready.keys.find((k) => k.name === 'full').apiKey };
  delete env.CI;
  const campaigns = (await run(['campaigns', 'ls', '-o', 'jsonl'], env)).stdout.trim().split('\n').map((line) => JSON.parse(line));
  const campaign = campaigns.find((c) => c.brandIds.length === 1);
  const file = players(dir, 'players.csv', campaign.id, rows, 'Bench');
  if (values.drain) await run(['links', 'create', '--from-file', players(dir, 'drain.csv', campaign.id, rateLimit, 'Drain')], env);

  const rate = values['client-rate'] === '0' ? [] : ['--rate', values['client-rate']];
  const started = performance.now();
  const result = await run([...rate, 'links', 'create', '--from-file', file, '--concurrency', values.concurrency], env);
  const seconds = (performance.now() - started) / 1000;
  const lines = result.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const failed = lines.filter((line) => !line.ok).length;
  const perSecond = rows / seconds;
  console.log(JSON.stringify({
    rows,
    seconds: Number(seconds.toFixed(2)),
    rowsPerSecond: Number(perSecond.toFixed(1)),
    percentOfRateLimit: Number(((perSecond * 60 * 100) / rateLimit).toFixed(1)),
    failed,
    reported: lines.length,
    exitCode: result.code,
    summary: result.stderr.trim().split('\n').pop(),
    pass: failed === 0 && lines.length === rows && seconds < (rows / rateLimit) * 60 / 0.9,
  }));
} finally {
  sandbox.kill('SIGTERM');
}

function players(directory, name, campaignId, count, prefix) {
  const path = join(directory, name);
  writeFileSync(path, ['campaignId,fullName', ...Array.from({ length: count }, (_, i) => `${campaignId},${prefix} Player ${i + 1}`)].join('\n'));
  return path;
}

function run(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
