// Stress: concurrent writers of one config file. N processes × M rounds: in each round N `svc login
// --profile pI-rR` and N `svc events tail --resume` (each saving the cursor of its own profile tI-rR)
// run at once into one config directory. Every login must keep its profile and every tail its
// cursor; the file must stay valid JSON of mode 0600 with no temp or lock file left behind.
//   SVC_BIN=/path/to/bin/svc.js node bench/stress-config.mjs [--processes 8] [--rounds 3]
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checks, runSvc, startSandbox, tempDir } from './stress-lib.mjs';

const { values } = parseArgs({ options: { processes: { type: 'string', default: '8' }, rounds: { type: 'string', default: '3' } } });
const N = Number(values.processes);
const M = Number(values.rounds);

const result = checks('stress-config');
console.log(`${N} processes × ${M} rounds: ${N} logins and ${N} cursor saves at once per round`);
const sandbox = await startSandbox();
const configDir = tempDir();
const base = { SVC_CONFIG_DIR: configDir, SVC_BASE_URL: sandbox.baseUrl, SVC_KEYRING: '0' };
const key = sandbox.key('full').apiKey;
let failedRuns = 0;
const started = Date.now();
try {
  for (let round = 0; round < M; round++) {
    const runs = [];
    for (let i = 0; i < N; i++) {
      runs.push(runSvc(['login', '--profile', `p${i}-r${round}`, '--api-key-stdin'], { env: base, input: `${key}\n` }));
      runs.push(runSvc(['events', 'tail', '--resume', '-o', 'jsonl'], { env: { ...base, SVC_API_KEY: key, SVC_PROFILE: `t${i}-r${round}` } }));
    }
    for (const run of await Promise.all(runs)) {
      if (run.code !== 0) {
        failedRuns++;
        if (failedRuns <= 3) console.log(`  exit ${run.code}: ${run.stderr.trim().slice(0, 300)}`);
      }
    }
  }
  const path = join(configDir, 'config.json');
  const data = JSON.parse(readFileSync(path, 'utf8'));
  const profiles = Object.keys(data.profiles ?? {}).length;
  const cursors = Object.values(data.cursors ?? {}).filter((byUrl) => typeof byUrl?.[sandbox.baseUrl] === 'string').length;
  result.figure('seconds', ((Date.now() - started) / 1000).toFixed(1));
  result.figure('runs that did not exit 0', `${failedRuns} of ${2 * N * M}`);
  result.figure('profiles kept', `${profiles} of ${N * M}`);
  result.figure('cursors kept', `${cursors} of ${N * M}`);
  result.check('every run exits 0', failedRuns === 0, `${failedRuns} did not`);
  result.check('every login kept its profile', profiles === N * M, `${profiles} of ${N * M}`);
  result.check('every tail kept its cursor', cursors === N * M, `${cursors} of ${N * M}`);
  result.check('the file is 0600', (statSync(path).mode & 0o777) === 0o600, (statSync(path).mode & 0o777).toString(8));
  const leftovers = readdirSync(configDir).filter((name) => name !== 'config.json');
  result.check('no temp or lock file is left', leftovers.length === 0, leftovers.join(', '));
} finally {
  await sandbox.stop();
  rmSync(configDir, { recursive: true, force: true });
}
result.finish();
