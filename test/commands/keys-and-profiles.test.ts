/**
 * Keys in the OS keyring (a fake here) or the 0600 file, tied to the host they were saved for;
 * profile names checked; a private config directory; no secret echoed from a flag.
 */
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memorySecretStore, NO_SECRET_STORE, type SecretStore } from '../../src/core/secret-store.js';
import { runInProcess } from '../helpers/run.js';
import { tempConfigDir } from '../helpers/svc.js';
import { startSandbox, type TestSandbox } from '../sandbox/helpers.js';

let sb: TestSandbox;
/** A loopback server that must never be called: it records what arrives and answers 500. */
let trap: Server;
let trapUrl: string;
const arrived: { method: string; url: string; authorization?: string }[] = [];
/** The keyring each run below is given (undefined: the OS keyring, as svc uses by itself). */
let secretStore: SecretStore | undefined;
const inProcess = (argv: string[], env: Record<string, string>, input?: string) => runInProcess(argv, env, input, { secretStore });

beforeAll(async () => {
  sb = await startSandbox();
  trap = createServer((request, response) => {
    arrived.push({ method: request.method ?? '', url: request.url ?? '', authorization: request.headers.authorization });
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await sb.close();
  await new Promise((resolve) => trap.close(resolve));
});
afterEach(() => {
  secretStore = undefined;
  arrived.length = 0;
});

const login = (env: Record<string, string>, profile = 'work') =>
  inProcess(['login', '--profile', profile, '--base-url', sb.info.baseUrl, '--api-key-stdin', '--webhook-secret-stdin'], env, `${sb.apiKey('full')}\n${sb.secret('full')}\n`);
const configFile = (dir: string) => join(dir, 'config.json');

describe('where keys live', () => {
  it('puts the key and webhook secret in the keyring when one is usable; profiles ls says so; rm removes them', async () => {
    const keyring = memorySecretStore();
    secretStore = keyring;
    const dir = tempConfigDir();
    const env = { SVC_CONFIG_DIR: dir };
    const result = await login(env);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr.split('\n').slice(1)).toEqual(['Stored the key and webhook secret in the OS keyring.', '']);
    const file = readFileSync(configFile(dir), 'utf8');
    expect(file).not.toContain(sb.apiKey('full'));
    expect(file).not.toContain(sb.secret('full'));
    expect([...keyring.entries.values()].sort()).toEqual([sb.apiKey('full'), sb.secret('full')].sort());

    const ls = await inProcess(['profiles', 'ls', '-o', 'json'], env);
    expect(JSON.parse(ls.stdout)).toEqual([{ name: 'work', baseUrl: sb.info.baseUrl, apiKey: `svc_live_…${sb.apiKey('full').slice(-4)}`, webhookSecret: true, storage: 'keyring', default: true }]);
    const me = await inProcess(['me'], env);
    expect(me.exitCode, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout).key.name).toBe('full');

    const rm = await inProcess(['profiles', 'rm', 'work'], env);
    expect([rm.exitCode, rm.stderr]).toEqual([0, 'Removed profile work.\n']);
    expect(keyring.entries.size).toBe(0);
  });

  it('falls back to the 0600 file in a 0700 directory it creates, with a one-line notice', async () => {
    secretStore = NO_SECRET_STORE;
    const dir = join(tempConfigDir(), 'new', 'svc');
    const result = await login({ SVC_CONFIG_DIR: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr.split('\n').slice(1)).toEqual([`note: no OS keyring is usable here; the key and webhook secret went to ${configFile(dir)} (mode 0600).`, '']);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(configFile(dir)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configFile(dir), 'utf8')).profiles.work).toEqual({ baseUrl: sb.info.baseUrl, apiKey: sb.apiKey('full'), webhookSecret: sb.secret('full') });
    const ls = await inProcess(['profiles', 'ls', '-o', 'json'], { SVC_CONFIG_DIR: dir });
    expect(JSON.parse(ls.stdout)[0].storage).toBe('file');
  });

  it('keeps reading profiles saved before, with the key in the file, without loading the keyring', async () => {
    secretStore = { ...NO_SECRET_STORE, get: async () => expect.fail('the keyring was read') };
    const dir = tempConfigDir();
    writeFileSync(configFile(dir), JSON.stringify({ currentProfile: 'old', profiles: { old: { baseUrl: sb.info.baseUrl, apiKey: sb.apiKey('links') } }, cursors: {} }), { mode: 0o600 });
    const me = await inProcess(['me'], { SVC_CONFIG_DIR: dir });
    expect(me.exitCode, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout).key.name).toBe('links');
  });

  it('a webhook secret in the keyring verifies signatures, and me works with the key from there', async () => {
    const keyring = memorySecretStore();
    secretStore = keyring;
    const dir = tempConfigDir();
    expect((await login({ SVC_CONFIG_DIR: dir })).exitCode).toBe(0);
    const body = '{"id":"evt_k"}';
    const payload = join(dir, 'body.json');
    writeFileSync(payload, body);
    const t = 1_763_719_200;
    const { computeSignature } = await import('../../src/core/signature.js');
    const result = await inProcess(['verify-signature', '--header', `t=${t},v1=${computeSignature(sb.secret('full'), t, body)}`, '--payload-file', payload, '--now', String(t), '-o', 'json'], { SVC_CONFIG_DIR: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ valid: true, secretSource: 'profile work' });
  });

  it('a key in a keyring that cannot be read is exit 4 naming the profile', async () => {
    secretStore = memorySecretStore();
    const dir = tempConfigDir();
    expect((await login({ SVC_CONFIG_DIR: dir })).exitCode).toBe(0);
    secretStore = NO_SECRET_STORE;
    const me = await inProcess(['me'], { SVC_CONFIG_DIR: dir });
    expect([me.exitCode, me.stdout, me.stderr]).toEqual([
      4,
      '',
      'error: no_api_key: the API key of profile work is in the OS keyring, which cannot be read now: no OS keyring on this machine\nhint: unlock the keyring, or set SVC_API_KEY\n',
    ]);
  });
});

describe('a saved key goes only to its own host', () => {
  for (const [how, argv, extraEnv] of [
    ['--base-url', ['--base-url', 'TRAP', 'me'], {}],
    ['SVC_BASE_URL', ['me'], { SVC_BASE_URL: 'TRAP' }],
  ] as const) {
    it(`refuses ${how} naming another URL: exit 2, one line naming the profile's URL, nothing sent`, async () => {
      secretStore = NO_SECRET_STORE;
      const dir = tempConfigDir();
      expect((await login({ SVC_CONFIG_DIR: dir })).exitCode).toBe(0);
      const env: Record<string, string> = { SVC_CONFIG_DIR: dir, ...Object.fromEntries(Object.entries(extraEnv).map(([k]) => [k, trapUrl])) };
      const result = await inProcess(argv.map((arg) => (arg === 'TRAP' ? trapUrl : arg)), env);
      expect([result.exitCode, result.stdout]).toEqual([2, '']);
      expect(result.stderr.split('\n')[0]).toBe(`error: usage_error: ${how}: the key of profile work belongs to ${sb.info.baseUrl}; it is not sent to ${trapUrl}`);
      expect(arrived).toEqual([]);
    });
  }

  it('the same for a key kept in the keyring', async () => {
    secretStore = memorySecretStore();
    const dir = tempConfigDir();
    expect((await login({ SVC_CONFIG_DIR: dir })).exitCode).toBe(0);
    const result = await inProcess(['me'], { SVC_CONFIG_DIR: dir, SVC_BASE_URL: trapUrl });
    expect(result.exitCode).toBe(2);
    expect(arrived).toEqual([]);
  });

  it('SVC_API_KEY still goes where the caller points it', async () => {
    secretStore = NO_SECRET_STORE;
    const dir = tempConfigDir();
    expect((await login({ SVC_CONFIG_DIR: dir })).exitCode).toBe(0);
    const result = await inProcess(['--max-retries', '0', 'me'], { SVC_CONFIG_DIR: dir, SVC_BASE_URL: trapUrl, SVC_API_KEY: 'svc_live_callerskey0000' });
    expect(result.exitCode).toBe(5);
    expect(arrived).toEqual([{ method: 'GET', url: '/v1/me', authorization: 'Bearer svc_live_callerskey0000' }]);
  });
});

describe('profile names and a private config', () => {
  it('refuses names outside the profile-name pattern (exit 2) and unknown profiles for use and rm (exit 3)', async () => {
    const env = { SVC_CONFIG_DIR: tempConfigDir(), SVC_KEYRING: '0' };
    const proto = await inProcess(['login', '--profile', '__proto__', '--api-key-stdin'], env, 'svc_live_whatever0000000\n');
    expect([proto.exitCode, proto.stderr]).toEqual([
      2,
      'error: usage_error: --profile: not a valid profile name: "__proto__" (letters, digits, _ . -; up to 64; starting with a letter or digit)\n',
    ]);
    expect(existsSync(join(env.SVC_CONFIG_DIR, 'config.json'))).toBe(false);
    for (const verb of ['rm', 'use']) {
      const result = await inProcess(['profiles', verb, 'constructor'], env);
      expect(result.exitCode).toBe(3);
      expect(result.stderr.split('\n')[0]).toBe('error: not_found: no profile named constructor');
    }
    const bad = await inProcess(['profiles', 'rm', '../x'], env);
    expect(bad.exitCode).toBe(2);
    const me = await inProcess(['--profile', 'toString', 'me'], env);
    expect([me.exitCode, me.stderr.split('\n')[0]]).toEqual([4, 'error: no_api_key: no profile named toString']);
  });

  it('refuses a config file that is a symbolic link, reading or writing', async () => {
    const dir = tempConfigDir();
    const elsewhere = join(tempConfigDir(), 'other.json');
    writeFileSync(elsewhere, JSON.stringify({ profiles: { p: { baseUrl: sb.info.baseUrl, apiKey: sb.apiKey('full') } }, cursors: {} }));
    symlinkSync(elsewhere, configFile(dir));
    const ls = await inProcess(['profiles', 'ls'], { SVC_CONFIG_DIR: dir });
    expect([ls.exitCode, ls.stdout, ls.stderr]).toEqual([
      2,
      '',
      `error: usage_error: config file ${configFile(dir)} is a symbolic link; svc keeps keys only in a regular file (replace the link with the file itself)\n`,
    ]);
    const login = await inProcess(['login', '--profile', 'p', '--base-url', sb.info.baseUrl, '--api-key-stdin'], { SVC_CONFIG_DIR: dir, SVC_KEYRING: '0' }, `${sb.apiKey('full')}\n`);
    expect(login.exitCode).toBe(2);
  });

  it('leaves an existing directory\'s mode alone', async () => {
    const dir = join(tempConfigDir(), 'mine');
    mkdirSync(dir, { mode: 0o750 });
    secretStore = NO_SECRET_STORE;
    expect((await login({ SVC_CONFIG_DIR: dir })).exitCode).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o750);
  });
});

describe('no secret echoed from a flag', () => {
  const KEY = 'svc_live_DoNotEchoMe0000000000';
  it.each([
    [['login', `--api-key=${KEY}`], '--api-key', 'printf "%s\\n" "$KEY" | svc login --api-key-stdin'],
    [['login', '--api-key', KEY], '--api-key', 'printf "%s\\n" "$KEY" | svc login --api-key-stdin'],
    [['--profile', 'x', 'login', `--webhook-secret=${KEY}`], '--webhook-secret', 'printf "%s\\n%s\\n" "$KEY" "$SECRET" | svc login --api-key-stdin --webhook-secret-stdin'],
  ])('%j is refused without repeating the value', async (argv, flag, pipe) => {
    const result = await inProcess(argv, { SVC_CONFIG_DIR: tempConfigDir() });
    expect([result.exitCode, result.stdout, result.stderr]).toEqual([
      2,
      '',
      `error: usage_error: ${flag}: secrets are never taken as flag values (they would stay in shell history and process lists); the value was not used\nhint: pipe it instead: ${pipe}\n`,
    ]);
  });

  it('a key given as a profile name is refused without repeating it', async () => {
    const result = await inProcess(['--profile', KEY, 'me'], { SVC_CONFIG_DIR: tempConfigDir() });
    expect([result.exitCode, result.stderr]).toEqual([2, 'error: usage_error: --profile: looks like an API key, not a profile name (keys are never taken as flag values; the value was not used)\n']);
  });

  it('an unknown option never repeats what followed its =', async () => {
    const result = await inProcess(['me', `--apikey-typo=${KEY}`], { SVC_CONFIG_DIR: tempConfigDir() });
    expect([result.exitCode, result.stderr]).toEqual([2, "error: usage_error: unknown option '--apikey-typo=…'\n"]);
  });
});

describe('profiles saved before names were checked', () => {
  it('can still be listed and removed', async () => {
    const dir = tempConfigDir();
    writeFileSync(configFile(dir), JSON.stringify({ profiles: { 'a b': { baseUrl: sb.info.baseUrl, apiKey: sb.apiKey('links') } }, cursors: {} }), { mode: 0o600 });
    const ls = await inProcess(['profiles', 'ls', '-o', 'jsonl'], { SVC_CONFIG_DIR: dir });
    expect(JSON.parse(ls.stdout)).toMatchObject({ name: 'a b', storage: 'file' });
    const rm = await inProcess(['profiles', 'rm', 'a b'], { SVC_CONFIG_DIR: dir });
    expect([rm.exitCode, rm.stderr]).toEqual([0, 'Removed profile a b.\n']);
    expect(JSON.parse(readFileSync(configFile(dir), 'utf8')).profiles).toEqual({});
  });
});
