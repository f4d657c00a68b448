#!/usr/bin/env node
// Hostile bulk input: one 40 MB line (JSON lines) or record (CSV) among good rows, through the real
// binary against `svc sandbox`. Bar: at most 15 s and 400 MB peak RSS, the line one
// failed row naming the 1 MiB cap, every other row created.
// Usage: node bench/bulk-hostile.mjs [megabytes=40]   (build first: npm run build)
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, machine, report, startSandbox } from './lib.mjs';

const megabytes = Number(process.argv[2] ?? 40);
const GOOD_ROWS = 10;
const sandbox = await startSandbox();
const dir = mkdtempSync(join(tmpdir(), 'svc-bulk-hostile-'));
try {
  const env = { ...process.env, SVC_BASE_URL: sandbox.info.baseUrl, SVC_API_KEY: sandbox.apiKey, SVC_CONFIG_DIR: dir, CI: '' };
  const campaigns = spawnSync(process.execPath, [BIN, 'campaigns', 'ls', '-o', 'json'], { env, encoding: 'utf8' });
  const campaignId = JSON.parse(campaigns.stdout).find((c) => c.brandIds.length === 1).id;
  const rows = [];
  for (const format of ['jsonl', 'csv']) {
    const file = join(dir, `hostile.${format}`);
    await writeHostile(file, format, campaignId);
    const run = await measure([BIN, 'links', 'create', '--from-file', file], env);
    const results = run.stdout.trim().split('\n').map((line) => JSON.parse(line));
    const hostile = results.find((result) => result.row === GOOD_ROWS / 2 + 1);
    const created = results.filter((result) => result.ok).length;
    const pass = run.seconds <= 15 && run.peakMb <= 400 && created === GOOD_ROWS && hostile?.ok === false && /1 MiB/.test(hostile.error.detail);
    rows.push([
      `${format}: ${megabytes} MB line among ${GOOD_ROWS} rows`,
      `${run.seconds.toFixed(2)} s, peak RSS ${run.peakMb.toFixed(0)} MB, ${created}/${GOOD_ROWS} created, exit ${run.code}${pass ? '' : '  FAIL'}`,
    ]);
    if (!pass) process.exitCode = 1;
  }
  report(`bulk hostile input (${machine()}); bar: <= 15 s, <= 400 MB`, rows);
} finally {
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** GOOD_ROWS/2 rows, the huge one, GOOD_ROWS/2 rows; written in pieces so the bench itself stays small. */
async function writeHostile(path, format, campaignId) {
  const out = createWriteStream(path);
  const write = (text) => new Promise((resolve) => (out.write(text) ? resolve() : out.once('drain', resolve)));
  const good = (i) => (format === 'jsonl' ? `${JSON.stringify({ campaignId, fullName: `Player ${i}` })}\n` : `${campaignId},Player ${i}\n`);
  if (format === 'csv') await write('campaignId,fullName\n');
  for (let i = 1; i <= GOOD_ROWS / 2; i++) await write(good(i));
  await write(format === 'jsonl' ? `{"campaignId":"${campaignId}","fullName":"` : `${campaignId},"`);
  const piece = 'x'.repeat(1024 * 1024);
  for (let i = 0; i < megabytes; i++) await write(piece);
  await write(format === 'jsonl' ? '"}\n' : '"\n');
  for (let i = GOOD_ROWS / 2 + 1; i <= GOOD_ROWS; i++) await write(good(i));
  await new Promise((resolve) => out.end(resolve));
}

/** Wall time, peak RSS (VmHWM, sampled from /proc) and output of one run. */
function measure(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peakMb = 0;
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const sample = () => {
      try {
        const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (match) peakMb = Math.max(peakMb, Number(match[1]) / 1024);
      } catch {
        // the process ended between two samples
      }
    };
    const timer = setInterval(sample, 5);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      resolve({ code, stdout, stderr, peakMb, seconds: (performance.now() - started) / 1000 });
    });
  });
}
