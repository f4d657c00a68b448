// Stress: `svc events tail --follow --interval S -o jsonl` prints each new event within S + 1 s,
// never exits while faults are injected (errors, dropped connections, 429s), and once they are
// removed prints every event made meanwhile, each exactly once, in feed order.
//   SVC_BIN=/tmp/svc-stress/bin/svc.js node bench/stress-follow.mjs [--interval 1] [--events 20] [--fault-seconds 15]
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checks, listAll, sleep, spawnSvc, startSandbox, tempDir } from './stress-lib.mjs';

const { values } = parseArgs({
  options: { interval: { type: 'string', default: '1' }, events: { type: 'string', default: '20' }, 'fault-seconds': { type: 'string', default: '15' } },
});
const INTERVAL_S = Number(values.interval);
const EVENTS = Number(values.events);
const FAULT_SECONDS = Number(values['fault-seconds']);
const BOUND_MS = INTERVAL_S * 1000 + 1000;

const result = checks('stress-follow');
const sandbox = await startSandbox();
const configDir = tempDir();
let tail;
try {
  const brands = (await sandbox.api('/me')).brands.map((b) => b.id);
  const env = { SVC_CONFIG_DIR: configDir, SVC_API_KEY: sandbox.key('full').apiKey, SVC_BASE_URL: sandbox.baseUrl, SVC_PROFILE: 'follow' };
  const initial = (await listAll(sandbox, '/events')).length;
  tail = spawnSvc(['events', 'tail', '--follow', '--interval', String(INTERVAL_S), '-o', 'jsonl'], { env });

  // Lines as they arrive, with the time each complete line was seen.
  const arrivals = new Map(); // link id → [ms, ...] for personal_link.created
  const order = [];
  let buffered = '';
  let offset = 0;
  tail.onStdout(() => {
    const text = tail.stdout();
    buffered += text.slice(offset);
    offset = text.length;
    const parts = buffered.split('\n');
    buffered = parts.pop();
    for (const line of parts) {
      const event = JSON.parse(line);
      order.push(event.id);
      if (event.type === 'personal_link.created') {
        const at = arrivals.get(event.data.id) ?? [];
        at.push(performance.now());
        arrivals.set(event.data.id, at);
      }
    }
  });
  const deadline = Date.now() + 10_000;
  while (order.length < initial && Date.now() < deadline) await sleep(20);
  result.check('catch-up prints the existing feed', order.length === initial, `${order.length} of ${initial}`);

  const makeLink = async (name) => {
    const res = await sandbox.admin('POST', '/links', { brandId: brands[Math.floor(Math.random() * brands.length)], fullName: name });
    if (res.status !== 201) throw new Error(`admin POST /links: ${res.status}`);
    return { id: res.body.id, at: performance.now() };
  };
  const waitFor = async (id, ms) => {
    const until = performance.now() + ms;
    while (!arrivals.has(id) && performance.now() < until && tail.child.exitCode === null) await sleep(10);
    return arrivals.get(id)?.[0];
  };

  // Phase 1: new events at random moments; each must show within interval + 1 s.
  const latencies = [];
  for (let i = 0; i < EVENTS; i++) {
    await sleep(Math.random() * INTERVAL_S * 1500);
    const link = await makeLink(`Follow ${i}`);
    const seenAt = await waitFor(link.id, BOUND_MS + 3000);
    const latency = seenAt === undefined ? Infinity : seenAt - link.at;
    latencies.push(latency);
    result.check(`event ${i + 1} printed within ${BOUND_MS} ms`, latency <= BOUND_MS, `${Number.isFinite(latency) ? latency.toFixed(0) : 'never'} ms`);
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  result.figure('latency (ms) median / p95 / max', `${sorted[Math.floor(sorted.length / 2)].toFixed(0)} / ${sorted[Math.floor(sorted.length * 0.95)].toFixed(0)} / ${sorted.at(-1).toFixed(0)}`);
  result.figure(`events later than the interval itself (${INTERVAL_S * 1000} ms)`, latencies.filter((l) => l > INTERVAL_S * 1000).length);

  // Phase 2: faults for a while, events made meanwhile; the tail must not exit.
  await sandbox.admin('PUT', '/faults', { errorRate: 0.3, resetRate: 0.1, rateLimitRate: 0.2 });
  const duringFaults = [];
  const faultEnd = performance.now() + FAULT_SECONDS * 1000;
  while (performance.now() < faultEnd) {
    duringFaults.push(await makeLink(`Fault ${duringFaults.length}`));
    await sleep(Math.random() * 1000);
  }
  result.check('the tail is still running after the faults', tail.child.exitCode === null && tail.child.signalCode === null, `exited ${tail.child.exitCode}: ${tail.stderr().slice(-500)}`);
  const printedDuringFaults = duringFaults.filter((l) => arrivals.has(l.id)).length;
  await sandbox.admin('PUT', '/faults', {});
  const cleared = performance.now();

  // Phase 3: faults removed; every event made during them, and new ones, must come.
  const after = [];
  for (let i = 0; i < 5; i++) {
    await sleep(Math.random() * 1000);
    after.push(await makeLink(`After ${i}`));
  }
  // After an outage the wait between polls is capped at 30 s (feed.ts); allow that plus the interval.
  let missing = [];
  const recoverUntil = performance.now() + 35_000;
  do {
    missing = [...duringFaults, ...after].filter((l) => !arrivals.has(l.id));
    if (missing.length === 0) break;
    await sleep(50);
  } while (performance.now() < recoverUntil);
  const recovered = Math.max(...[...duringFaults, ...after].map((l) => arrivals.get(l.id)?.[0] ?? Infinity)) - cleared;
  result.figure('events made during faults', `${duringFaults.length} (${printedDuringFaults} printed while faults were on)`);
  result.figure('all printed this long after the faults were removed (ms)', recovered.toFixed(0));
  result.check('every event made during and after the faults is printed', missing.length === 0, `${missing.length} missing`);
  const lastLatencies = after.map((l) => (arrivals.get(l.id)?.[0] ?? Infinity) - l.at);
  result.figure('latency after recovery (ms)', lastLatencies.map((l) => l.toFixed(0)).join(', '));

  await sleep(INTERVAL_S * 1000 + 500);
  const feed = (await listAll(sandbox, '/events')).map((e) => e.id);
  result.check('the tail printed the feed exactly: same events, same order, no duplicates', JSON.stringify(order) === JSON.stringify(feed), `printed ${order.length}, feed ${feed.length}, distinct printed ${new Set(order).size}`);
  result.check('still running at the end', tail.child.exitCode === null);

  // Ctrl-C ends it with 130 and saves the cursor.
  const exit = await tail.kill('SIGINT');
  result.check('SIGINT exits 130', exit.code === 130, `exit ${exit.code} ${exit.signal ?? ''}`);
  const warnings = tail.stderr().split('\n').filter((l) => l.includes('feed unavailable')).length;
  result.figure('"feed unavailable" warnings on stderr', warnings);
} finally {
  if (tail) await tail.kill('SIGKILL');
  await sandbox.stop();
  rmSync(configDir, { recursive: true, force: true });
}
result.finish();
