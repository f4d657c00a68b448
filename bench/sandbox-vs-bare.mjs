// CPU per GET /me: `svc sandbox` against a bare node:http server answering the same bytes.
// Each server runs in its own process, started as a user starts it (`svc sandbox --port 0`, the real
// request path: authentication, rate limit, routing, the handler; --rate-limit only lifts the limit
// so the load is not refused). One keep-alive load generator (undici Pool) here drives them in short
// alternating rounds, so drift on a shared machine hits both alike.
// What is compared is each server process's own CPU time (user + system, every thread, from
// /proc/<pid>/task/*/schedstat in nanoseconds) divided by the requests it answered: on two cores the
// load generator saturates before either server does, so requests per second would measure the
// client. Target: sandbox ≤ 1.10× bare.
// Run: npm run build && node bench/sandbox-vs-bare.mjs [--rounds 10] [--round-ms 1000] [--connections 16]
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { startSandbox } from './sandbox-common.mjs';

const arg = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
};
const ROUNDS = arg('rounds', 10);
const ROUND_MS = arg('round-ms', 1000);
const CONNECTIONS = arg('connections', 16);
const TARGET = 1.1;

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
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/** CPU seconds a process has used so far, all its threads: schedstat (ns) where there is one, else stat (ticks). */
function cpuSeconds(pid) {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1e9;
  } catch {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  }
}

/** One answer as raw bytes on the wire: status line and headers (Date left out), and body. */
function rawAnswer(origin, path, headers) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { headers: { ...headers, connection: 'keep-alive' } }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const head = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i].toLowerCase() !== 'date') head.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        resolve({ status: res.statusCode, head: head.join('\n'), body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Requests answered 200 during `ms`, CONNECTIONS in flight at all times; the server's CPU for them. */
async function round(pool, pid, path, headers, ms) {
  let done = 0;
  const until = performance.now() + ms;
  const worker = async () => {
    while (performance.now() < until) {
      const { statusCode, body } = await pool.request({ method: 'GET', path, headers });
      await body.dump();
      if (statusCode !== 200) throw new Error(`${path}: HTTP ${statusCode}`);
      done++;
    }
  };
  const cpuBefore = cpuSeconds(pid);
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return { requests: done, cpu: cpuSeconds(pid) - cpuBefore };
}

const sandbox = await startSandbox();
const base = new URL(sandbox.info.baseUrl);
const path = `${base.pathname}/me`;
// The headers svc sends on every call.
const headers = { authorization: `Bearer ${sandbox.apiKey}`, accept: 'application/json', 'user-agent': 'svc-bench' };
const answer = await rawAnswer(base.origin, path, headers);
const bare = await startBare(answer.body);
const bareAnswer = await rawAnswer(bare.origin, path, headers);
if (answer.status !== 200 || bareAnswer.status !== 200 || answer.head !== bareAnswer.head || !answer.body.equals(bareAnswer.body)) {
  throw new Error(`the two servers do not answer the same bytes:\n${answer.head}\n---\n${bareAnswer.head}`);
}
const servers = {
  sandbox: { pid: sandbox.pid, pool: new Pool(base.origin, { connections: CONNECTIONS, pipelining: 1 }), rounds: [] },
  bare: { pid: bare.pid, pool: new Pool(bare.origin, { connections: CONNECTIONS, pipelining: 1 }), rounds: [] },
};
try {
  // Warm both up (JIT, connections), then alternate rounds.
  for (const server of Object.values(servers)) await round(server.pool, server.pid, path, headers, 2000);
  for (let i = 0; i < ROUNDS; i++) {
    for (const name of i % 2 === 0 ? ['sandbox', 'bare'] : ['bare', 'sandbox']) {
      const server = servers[name];
      server.rounds.push(await round(server.pool, server.pid, path, headers, ROUND_MS));
    }
  }
  const perRequest = (r) => (r.cpu / r.requests) * 1e6;
  const total = (rounds) => perRequest({ cpu: rounds.reduce((a, r) => a + r.cpu, 0), requests: rounds.reduce((a, r) => a + r.requests, 0) });
  const ratios = servers.sandbox.rounds.map((r, i) => perRequest(r) / perRequest(servers.bare.rounds[i]));
  const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
  const ratio = total(servers.sandbox.rounds) / total(servers.bare.rounds);
  console.log(`GET /me, ${answer.body.length} bytes, the same status, headers and body from both; ${CONNECTIONS} keep-alive connections, ${ROUNDS} alternating rounds of ${ROUND_MS} ms`);
  for (const [name, server] of Object.entries(servers)) {
    const requests = server.rounds.reduce((a, r) => a + r.requests, 0);
    console.log(`${name.padEnd(8)} ${total(server.rounds).toFixed(2)} µs CPU/request over ${requests} requests (rounds: ${server.rounds.map((r) => perRequest(r).toFixed(1)).join(', ')})`);
  }
  console.log(`ratio    ${ratio.toFixed(3)} of the totals, ${median.toFixed(3)} median of rounds (per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}); target <= ${TARGET.toFixed(2)}`);
  process.exitCode = ratio <= TARGET ? 0 : 1;
} finally {
  await Promise.all(Object.values(servers).map((server) => server.pool.close()));
  await Promise.all([sandbox.stop(), bare.stop()]);
}
