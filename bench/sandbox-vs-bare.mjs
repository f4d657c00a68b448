// GET /me on the sandbox against a bare node:http server answering the same bytes, side by side in
// one run: each server in its own process, one keep-alive load generator (undici Pool) here, short
// alternating rounds so drift on a shared machine hits both alike. Target: sandbox ≥ 0.8× bare.
// Run: npm run build && node bench/sandbox-vs-bare.mjs [--seconds 4] [--rounds 8] [--connections 16]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { startSandbox } from './sandbox-common.mjs';

const arg = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
};
const SECONDS = arg('seconds', 4);
const CONNECTIONS = arg('connections', 16);
const ROUNDS = arg('rounds', 8);
const ROUND_MS = (SECONDS * 1000) / (2 * ROUNDS);

async function startBare(body) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./bare/me-server.mjs', import.meta.url))], {
    env: { ...process.env, BODY_BASE64: body.toString('base64') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve(Number(line)));
  });
  return {
    pid: child.pid,
    origin: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    }),
  };
}

/** CPU seconds a process has used so far (user + system), from /proc; NaN where there is none. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Requests answered 200 during `ms`, CONNECTIONS requests in flight at all times. */
async function load(pool, path, headers, ms, counts) {
  let done = 0;
  const cpuBefore = cpuSeconds(counts?.pid);
  const until = performance.now() + ms;
  const worker = async () => {
    while (performance.now() < until) {
      const { statusCode, body } = await pool.request({ method: 'GET', path, headers });
      await body.dump();
      if (statusCode !== 200) throw new Error(`${path}: HTTP ${statusCode}`);
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  if (counts) {
    counts.requests += done;
    counts.cpu += cpuSeconds(counts.pid) - cpuBefore;
  }
  return done / ((performance.now() - started) / 1000);
}

const sandbox = await startSandbox();
const base = new URL(sandbox.info.baseUrl);
const headers = { authorization: `Bearer ${sandbox.apiKey}` };
const sandboxPool = new Pool(base.origin, { connections: CONNECTIONS, pipelining: 1 });
const first = await sandboxPool.request({ method: 'GET', path: `${base.pathname}/me`, headers });
const body = Buffer.from(await first.body.arrayBuffer());
const bare = await startBare(body);
const barePool = new Pool(bare.origin, { connections: CONNECTIONS, pipelining: 1 });
try {
  // Warm both up (JIT, connections), then alternate rounds.
  await load(sandboxPool, `${base.pathname}/me`, headers, 300);
  await load(barePool, `${base.pathname}/me`, headers, 300);
  const rates = { sandbox: [], bare: [] };
  const counts = { sandbox: { pid: sandbox.pid, requests: 0, cpu: 0 }, bare: { pid: bare.pid, requests: 0, cpu: 0 } };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['sandbox', 'bare'] : ['bare', 'sandbox'];
    for (const name of order) {
      const pool = name === 'sandbox' ? sandboxPool : barePool;
      rates[name].push(await load(pool, `${base.pathname}/me`, headers, ROUND_MS, counts[name]));
    }
  }
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
  const ratios = rates.sandbox.map((rate, i) => rate / rates.bare[i]);
  console.log(`GET /me, ${body.length} bytes, ${CONNECTIONS} keep-alive connections, ${ROUNDS} alternating rounds of ${(ROUND_MS / 1000).toFixed(1)} s each`);
  console.log(`sandbox ${mean(rates.sandbox).toFixed(0)} requests/s   (rounds: ${rates.sandbox.map((r) => r.toFixed(0)).join(', ')})`);
  console.log(`bare    ${mean(rates.bare).toFixed(0)} requests/s   (rounds: ${rates.bare.map((r) => r.toFixed(0)).join(', ')})`);
  const medianRatio = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
  console.log(`ratio   ${(mean(rates.sandbox) / mean(rates.bare)).toFixed(2)} of the means, ${medianRatio.toFixed(2)} median of rounds (per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}); target >= 0.80`);
  // Server CPU per request hardly depends on what else the machine runs: the steadier figure when it is busy.
  const perRequest = (c) => (c.cpu / c.requests) * 1e6;
  console.log(
    `cpu     sandbox ${perRequest(counts.sandbox).toFixed(0)} µs/request, bare ${perRequest(counts.bare).toFixed(0)} µs/request: ` +
      `requests per CPU second ratio ${(perRequest(counts.bare) / perRequest(counts.sandbox)).toFixed(2)}`,
  );
} finally {
  await Promise.all([sandboxPool.close(), barePool.close()]);
  await Promise.all([sandbox.stop(), bare.stop()]);
}
