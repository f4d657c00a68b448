// Shared by the CLI benches: run a command many times, interleaved with its baseline, and report
// medians and ratios. Figures, not assertions: these machines are noisy, so npm test never times.
import { spawnSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../bin/svc.js', import.meta.url));
export { median, startSandbox } from './sandbox-common.mjs';

/** Wall time of one run in ms (stdout discarded); throws if the command fails. */
export function timeOnce(args, env = {}) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

/**
 * Runs every variant `runs` times, round-robin so drift hits all alike (after one warm-up run each,
 * which also fills svc's code cache). Returns the median of each and
 * the median of its per-round ratios to `baseline` (pairs taken in the
 * same round, so a slow patch of the shared machine weighs on both sides).
 */
export function compare(variants, runs, baseline) {
  const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (const { args, env } of Object.values(variants)) timeOnce(args, env);
  for (let i = 0; i < runs; i++) {
    for (const [name, { args, env }] of Object.entries(variants)) samples[name].push(timeOnce(args, env));
  }
  const medians = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
  const ratios = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values.map((value, i) => value / samples[baseline][i]))]));
  return { medians, ratios };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Peak resident memory (MB) of one run, sampled from /proc every 5 ms. */
export function peakRssMb(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
    let peak = 0;
    const sample = () => {
      try {
        const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (match) peak = Math.max(peak, Number(match[1]) / 1024);
      } catch {
        // the process ended between two samples
      }
    };
    const timer = setInterval(sample, 5);
    child.once('exit', (code) => {
      clearInterval(timer);
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}`));
      else resolve(peak);
    });
  });
}

export function machine() {
  return `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`;
}

export function report(title, rows) {
  console.log(`\n${title}`);
  for (const [label, value] of rows) console.log(`  ${label.padEnd(44)} ${value}`);
}

export const fmt = (ms) => `${ms.toFixed(1)} ms`;
export const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
/** A paired ratio against its target, e.g. `1.12× (target ≤ 1.30×)`. */
export const against = (value, target) => `${value.toFixed(2)}× (target ≤ ${target.toFixed(2)}×)`;

if (!existsSync(new URL('../dist/cli.cjs', import.meta.url))) {
  console.error('dist/ is missing: run npm run build first');
  process.exit(2);
}
