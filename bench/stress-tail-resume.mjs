// Stress: `svc events tail --resume -o jsonl` killed (SIGKILL) at random moments over a 300-event
// feed must, across all runs, print every event in feed order and skip none.
//   SVC_BIN=/tmp/svc-stress/bin/svc.js node bench/stress-tail-resume.mjs [--kills 25] [--events 300] [--seed N] [--delay-ms 15] [--profile NAME|'']
// Each run's complete lines must be a contiguous, in-order slice of the feed; each run must start at
// or before the first event not yet printed (a resume never jumps over one); a partial last line (a
// kill mid-write) is dropped by the checker and must then be printed by a later run.
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checks, listAll, sleep, spawnSvc, startSandbox, tempDir, runSvc } from './stress-lib.mjs';

const { values } = parseArgs({ options: { kills: { type: 'string', default: '25' }, events: { type: 'string', default: '300' }, seed: { type: 'string' }, 'delay-ms': { type: 'string', default: '15' }, profile: { type: 'string', default: 'stress' } } });
const KILLS = Number(values.kills);
const EVENTS = Number(values.events);
let seed = Number(values.seed ?? Date.now() % 100000);
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
// Small pages most of the time, so a run takes long enough to be killed mid-stream.
const LIMITS = [1, 7, 1, 13, 7, 1, 100, 1, 7, undefined];
const DELAY_MS = Number(values['delay-ms']);

const result = checks('stress-tail-resume');
console.log(`seed ${seed}, ${KILLS} kills, ${EVENTS} events`);
const sandbox = await startSandbox();
const configDir = tempDir();
try {
  // The feed: team-created links, with some of them claimed (personal_link.claimed) in between.
  const me = await sandbox.api('/me');
  const brands = me.brands.map((b) => b.id);
  const already = (await listAll(sandbox, '/events')).length;
  const created = [];
  while ((await listAll(sandbox, '/events')).length < already + EVENTS) {
    const remaining = already + EVENTS - (await listAll(sandbox, '/events')).length;
    const batch = Math.min(remaining, 25);
    const links = await Promise.all(
      Array.from({ length: batch }, (_, i) => sandbox.admin('POST', '/links', { brandId: brands[i % brands.length], fullName: `Stress ${created.length + i}` })),
    );
    for (const link of links) {
      if (link.status !== 201) throw new Error(`admin POST /links: ${link.status} ${JSON.stringify(link.body)}`);
      created.push(link.body.id);
    }
    // claim every fourth link, so the feed mixes types (a claim also makes order activity of no key)
    if (remaining - batch > 5) {
      for (const id of links.filter((_, i) => i % 4 === 0).map((l) => l.body.id)) {
        const claimed = await sandbox.admin('POST', `/links/${id}/claim`, {});
        if (claimed.status >= 300) break;
      }
    }
  }
  const feedEvents = await listAll(sandbox, '/events');
  const feed = feedEvents.map((e) => e.id);
  const types = {};
  for (const e of feedEvents) types[e.type] = (types[e.type] ?? 0) + 1;
  result.figure('feed types', JSON.stringify(types));
  const position = new Map(feed.map((id, i) => [id, i]));
  result.figure('feed events', `${feed.length} (${already} seeded + ${feed.length - already} made)`);
  result.check('feed has no duplicate ids', position.size === feed.length);

  // A little latency per call (sandbox fault delayMs) spreads a run over a second or more.
  await sandbox.admin('PUT', '/faults', { delayMs: DELAY_MS });
  const env = {
    SVC_CONFIG_DIR: configDir,
    SVC_API_KEY: sandbox.key('full').apiKey,
    SVC_BASE_URL: sandbox.baseUrl,
    // --profile '' leaves SVC_PROFILE unset: the cursor then belongs to the profile `default`.
    ...(values.profile ? { SVC_PROFILE: values.profile } : {}),
  };
  const coverage = trackCoverage(position, result);
  selfTest(feedEvents);
  let killsMidStream = 0;
  const checkRun = coverage.checkRun;

  for (let run = 0; run < KILLS; run++) {
    const limit = LIMITS[run % LIMITS.length];
    // Odd runs: 0–300 ms from the start (often before any output); even runs: 0–300 ms after the
    // first byte of output (mid-stream, often mid-line).
    const fromOutput = run % 2 === 1;
    const killAfter = Math.floor(random() * 301);
    const args = ['events', 'tail', '--resume', '-o', 'jsonl', ...(limit ? ['--limit', String(limit)] : [])];
    const tail = spawnSvc(args, { env });
    if (fromOutput) {
      await Promise.race([new Promise((resolve) => tail.onStdout(resolve)), tail.closed]);
      killsMidStream++;
    }
    await sleep(killAfter);
    const exit = await tail.kill('SIGKILL');
    if (exit.signal !== 'SIGKILL' && exit.code !== 0) result.check(`run ${run + 1}: exits 0 when it finished before the kill`, false, `exit ${exit.code}: ${tail.stderr().slice(0, 300)}`);
    checkRun(`run ${run + 1} (limit ${limit ?? 'default'}, kill at ${killAfter} ms${fromOutput ? ' after first output' : ''})`, tail.stdout());
  }
  await sandbox.admin('PUT', '/faults', {});
  const before = coverage.printedUpTo();
  const final = await runSvc(['events', 'tail', '--resume', '-o', 'jsonl', '--limit', '7'], { env });
  result.check('final run exits 0', final.code === 0, `exit ${final.code}: ${final.stderr.slice(0, 300)}`);
  checkRun('final run', final.stdout);
  result.figure('printed before the final run', `${before + 1} of ${feed.length}`);
  result.figure('kills timed from the first output', killsMidStream);
  result.figure('runs with no complete line', coverage.stats.emptyRuns);
  result.figure('runs cut mid-line', coverage.stats.partials);
  result.figure('repeated events (allowed)', coverage.stats.repeated);
  const missing = feed.filter((_, i) => !coverage.seen.has(i));
  result.check('the union of all outputs holds every event of the feed', missing.length === 0, `${missing.length} missing, first ${missing[0]}`);

  // A finished resume leaves nothing more to print.
  const again = await runSvc(['events', 'tail', '--resume', '-o', 'jsonl'], { env });
  result.check('a resume after the end prints nothing new', again.code === 0 && again.stdout === '', `exit ${again.code}, ${again.stdout.split('\n').length - 1} lines`);
} finally {
  await sandbox.stop();
  rmSync(configDir, { recursive: true, force: true });
}
result.finish();

/**
 * The checker: each run's complete lines must be a contiguous in-order slice of the feed starting no
 * later than the first event not yet printed. A last line without its newline (a kill mid-write) is
 * not counted as printed, so the event in it must come again in a later run.
 */
function trackCoverage(position, sink) {
  const seen = new Set();
  const stats = { partials: 0, emptyRuns: 0, repeated: 0 };
  let printedUpTo = -1; // every feed index up to this one has been printed
  const checkRun = (label, stdout) => {
    const lines = stdout.split('\n');
    const last = lines.pop(); // after the final \n this is '' unless the kill cut a line
    if (last !== '') stats.partials++;
    const indexes = [];
    for (const line of lines) {
      let event;
      try {
        event = JSON.parse(line);
      } catch {
        sink.check(`${label}: every complete line is JSON`, false, line.slice(0, 120));
        return;
      }
      const index = position.get(event.id);
      if (!sink.check(`${label}: event belongs to the feed`, index !== undefined, String(event.id))) return;
      indexes.push(index);
    }
    if (process.env.STRESS_VERBOSE) console.log(`  ${label}: ${indexes.length} events${indexes.length ? ` [${indexes[0]}..${indexes.at(-1)}]` : ''}${last !== '' ? ' + partial line' : ''}`);
    if (indexes.length === 0) {
      stats.emptyRuns++;
      return;
    }
    const contiguous = indexes.every((index, i) => i === 0 || index === indexes[i - 1] + 1);
    sink.check(`${label}: output is one contiguous in-order slice of the feed`, contiguous, `indexes ${indexes.slice(0, 5).join(',')}…`);
    sink.check(
      `${label}: starts no later than the first unprinted event`,
      indexes[0] <= printedUpTo + 1,
      `started at feed index ${indexes[0]}, but only 0..${printedUpTo} were printed before: skipped ${indexes[0] - printedUpTo - 1}`,
    );
    for (const index of indexes) {
      if (seen.has(index)) stats.repeated++;
      seen.add(index);
    }
    while (seen.has(printedUpTo + 1)) printedUpTo++;
  };
  return { checkRun, seen, stats, printedUpTo: () => printedUpTo };
}

/** The checker itself: a cut last line is tolerated and not counted; a run that jumps over it is caught. */
function selfTest(feedEvents) {
  const lines = feedEvents.slice(0, 10).map((event) => JSON.stringify(event));
  const position = new Map(feedEvents.map((event, i) => [event.id, i]));
  const failures = [];
  const sink = { check: (name, ok) => (ok ? true : (failures.push(name), false)) };
  const coverage = trackCoverage(position, sink);
  coverage.checkRun('a', `${lines.slice(0, 3).join('\n')}\n${lines[3].slice(0, 40)}`); // killed mid-line 4
  const cutTolerated = failures.length === 0 && coverage.stats.partials === 1 && !coverage.seen.has(3);
  coverage.checkRun('b', `${lines.slice(4, 6).join('\n')}\n`); // resumes after the cut line: a skip
  const skipCaught = failures.some((name) => name.includes('starts no later'));
  result.check('checker: a partial last line is tolerated and not counted as printed', cutTolerated);
  result.check('checker: a resume past a partially printed event is caught as a skip', skipCaught, JSON.stringify(failures));
}
