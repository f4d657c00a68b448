// Start-up of real commands against `node -e 0` (median wall time; ratios of runs paired in the same
// round). `svc profiles ls` reads a real config file (four profiles, one kept in the keyring) where a
// user's is (the config directory found from XDG_CONFIG_HOME and HOME, not SVC_CONFIG_DIR) and
// prints them; `svc links create --help` builds its group and renders help through commander. The
// shim answers a bare `--version` and `--help` without loading the CLI: those two are shown for
// reference only, and no target rests on them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, against, compare, fmt, machine, report } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 30);
const configDir = mkdtempSync(join(tmpdir(), 'svc-bench-startup-'));
try {
  const key = (tail) => `svc_live_${'x'.repeat(28)}${tail}`;
  mkdirSync(join(configDir, 'svc'));
  writeFileSync(
    join(configDir, 'svc', 'config.json'),
    JSON.stringify({
      currentProfile: 'sandbox',
      profiles: {
        sandbox: { baseUrl: 'http://127.0.0.1:4010/v1', apiKey: key('1234') },
        staging: { baseUrl: 'https://api.staging.example.test/v1', apiKey: key('5678'), webhookSecret: 'whsec_bench' },
        ci: { baseUrl: 'https://api.example.test/v1', keyring: { account: 'ci/bench', apiKey: true, maskedKey: 'svc_live_…9999' } },
        'Zürich-team': { baseUrl: 'https://api.example.test/v1', apiKey: key('0000') },
      },
      cursors: {},
    }),
    { mode: 0o600 },
  );
  const env = { XDG_CONFIG_HOME: configDir, SVC_CONFIG_DIR: '' };
  const { medians, ratios } = compare(
    {
      node: { args: ['-e', '0'] },
      profiles: { args: [BIN, 'profiles', 'ls'], env },
      profilesTable: { args: [BIN, 'profiles', 'ls', '-o', 'table'], env },
      createHelp: { args: [BIN, 'links', 'create', '--help'], env },
      version: { args: [BIN, '--version'] },
      help: { args: [BIN, '--help'] },
    },
    runs,
    'node',
  );
  const row = (label, name, target) => [label, `${fmt(medians[name])}  ${target ? against(ratios[name], target) : `${ratios[name].toFixed(2)}×`}`];
  report(`start-up (${runs} rounds, paired with node -e 0; ${machine()})`, [
    ['node -e 0', fmt(medians.node)],
    row('svc profiles ls (jsonl, a real config)', 'profiles', 1.3),
    row('svc profiles ls -o table', 'profilesTable', 1.3),
    row('svc links create --help', 'createHelp', 1.3),
    row('svc --version (answered by the shim)', 'version'),
    row('svc --help (answered by the shim)', 'help'),
  ]);
} finally {
  rmSync(configDir, { recursive: true, force: true });
}
