// Start-up of real commands against `node -e 0` (median wall time; ratios of runs paired in the same
// round). `svc profiles ls` reads a real config file (four profiles, one kept in the keyring) where a
// user's is (the config directory found from XDG_CONFIG_HOME and HOME, not SVC_CONFIG_DIR) and
// prints them; `svc links create --help` builds its group and renders help through commander.
// Targets (issue 28): 1.35× on Node 22.1+ (Node's compile cache), 1.5× on Node 20 (none).
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
  const [major, minor] = process.versions.node.split('.').map(Number);
  const target = major > 22 || (major === 22 && minor >= 1) ? 1.35 : 1.5;
  const row = (label, name, target) => [label, `${fmt(medians[name])}  ${target ? against(ratios[name], target) : `${ratios[name].toFixed(2)}×`}`];
  report(`start-up (${runs} rounds, paired with node -e 0; ${machine()})`, [
    ['node -e 0', fmt(medians.node)],
    row('svc profiles ls (jsonl, a real config)', 'profiles', target),
    row('svc profiles ls -o table', 'profilesTable', target),
    row('svc links create --help', 'createHelp', target),
    row('svc --version', 'version', target),
    row('svc --help', 'help', target),
  ]);
} finally {
  rmSync(configDir, { recursive: true, force: true });
}
