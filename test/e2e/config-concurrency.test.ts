/**
 * What only real processes show about the config file: writers at once into one config directory
 * (logins, cursor saves) each keep their change, and a lock left by a killed svc is taken over.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { tempDir } from '../helpers/cleanup.js';
import { addEvents, startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { svc } from '../helpers/svc.js';

let sandbox: InProcessSandbox;
/**
 * Eight processes at once: with the config lock taken out of svc, eight logins lost a profile in
 * six runs of six, and four cursor saves beside four logins lost one in three of three, on this
 * 2-core machine quiet or loaded (2026-11-29). Eight at once on a busy machine can still take a
 * minute; a hang fails.
 */
const PROCESS_TIMEOUT_MS = 180_000;
const TEST_TIMEOUT_MS = 240_000;
beforeAll(async () => {
  sandbox = await startSandbox();
  await addEvents(sandbox, 3);
});

const login = (dir: string, profile: string) =>
  svc(['login', '--profile', profile, '--api-key-stdin'], { env: { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sandbox.baseUrl, SVC_KEYRING: '0' }, input: `${sandbox.key('full').apiKey}\n`, timeout: PROCESS_TIMEOUT_MS });

const tail = (dir: string, profile: string) =>
  svc(['events', 'tail', '--resume', '-o', 'jsonl'], { env: { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sandbox.baseUrl, SVC_API_KEY: sandbox.key('full').apiKey, SVC_KEYRING: '0', SVC_PROFILE: profile }, timeout: PROCESS_TIMEOUT_MS });

const config = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, unknown>; cursors: Record<string, Record<string, string>> };

it('8 logins at once into one config directory keep 8 profiles', async () => {
  const dir = tempDir();
  const names = Array.from({ length: 8 }, (_, i) => `p${i}`);
  const runs = await Promise.all(names.map((name) => login(dir, name)));
  expect(runs.map((run) => [run.exitCode, run.stderr.includes('saved as profile')])).toEqual(names.map(() => [0, true]));
  expect(Object.keys(config(dir).profiles).sort()).toEqual([...names].sort());
  expect(readdirSync(dir)).toEqual(['config.json']);
}, TEST_TIMEOUT_MS);

it('4 cursor saves beside 4 logins keep every cursor and every profile; the next --resume prints nothing again', async () => {
  const dir = tempDir();
  const runs = await Promise.all(Array.from({ length: 4 }, (_, i) => [tail(dir, `t${i}`), login(dir, `p${i}`)]).flat());
  expect(runs.map((run) => run.exitCode)).toEqual(runs.map(() => 0));
  const saved = config(dir);
  expect(Object.keys(saved.profiles).sort()).toEqual(Array.from({ length: 4 }, (_, i) => `p${i}`).sort());
  const cursors = Object.entries(saved.cursors).map(([profile, byUrl]) => [profile, typeof byUrl[sandbox.baseUrl]]);
  expect(cursors.sort()).toEqual(Array.from({ length: 4 }, (_, i) => [`t${i}`, 'string']).sort());
  const again = await tail(dir, 't3');
  expect({ exitCode: again.exitCode, stdout: again.stdout }).toEqual({ exitCode: 0, stdout: '' });
}, TEST_TIMEOUT_MS);

it('a config lock left by a killed svc is taken over: the login saves at once', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'config.json.lock'), JSON.stringify({ pid: 2 ** 22 + 1, host: hostname(), token: 'killed', since: new Date().toISOString() }));
  const run = await login(dir, 'after-kill');
  expect(run.exitCode).toBe(0);
  expect(Object.keys(config(dir).profiles)).toEqual(['after-kill']);
  expect(readdirSync(dir)).toEqual(['config.json']);
}, 60_000);
