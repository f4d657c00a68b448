#!/usr/bin/env node
// Bulk memory: a 100,000-row CSV backfill must stay under 200 MB peak RSS (svc's own process).
// Usage: node bench/bulk-memory.mjs [rows]   (build first: npm run build)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { BIN, machine, peakRssMb, report, startSandbox } from './lib.mjs';

const rows = Number(process.argv[2] ?? 100_000);
const sandbox = await startSandbox();
try {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bulk-mem-'));
  const env = { SVC_BASE_URL: sandbox.info.baseUrl, SVC_API_KEY: sandbox.apiKey, SVC_CONFIG_DIR: dir, CI: '' };
  const campaigns = spawnSync(process.execPath, [BIN, 'campaigns', 'ls', '-o', 'json'], { env: { ...process.env, ...env }, encoding: 'utf8' });
  const campaign = JSON.parse(campaigns.stdout).find((c) => c.brandIds.length === 1);
  const file = join(dir, 'players.csv');
  const lines = ['campaignId,fullName,email'];
  for (let i = 1; i <= rows; i++) lines.push(`${campaign.id},"Player ${i}, Jr.",player${i}@example.com`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  const started = Date.now();
  const peak = await peakRssMb([BIN, '--rate', '1000000', 'links', 'create', '--from-file', file, ], env);
  report(`bulk memory (${machine()})`, [
    [`svc links create --from-file (${rows.toLocaleString('en-US')} rows)`, `peak RSS ${peak.toFixed(0)} MB (target < 200 MB), ${((Date.now() - started) / 1000).toFixed(1)} s`],
  ]);
} finally {
  await sandbox.stop();
}
