/**
 * The config file is checked when read: a value of the wrong type is exit 2 naming the profile, the
 * field and the fix, the file is left as it was, and the fix (`login`, `profiles rm`) keeps the rest.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run.js';
import { tempConfigDir } from '../helpers/svc.js';
import { startSandbox, type TestSandbox } from '../sandbox/helpers.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb.close();
});

const GOOD = { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'svc_live_good0000000000000000000000000' };

function configWith(broken: Record<string, unknown>, extra: Record<string, unknown> = {}): { dir: string; text: string } {
  const dir = tempConfigDir();
  const text = JSON.stringify({ currentProfile: 'work', profiles: { work: { ...GOOD, ...broken }, other: GOOD }, ...extra }, undefined, '\t');
  writeFileSync(join(dir, 'config.json'), text, { mode: 0o600 });
  return { dir, text };
}

const FIX = "hint: run 'svc login --profile work' to save it again, or 'svc profiles rm work'";

describe('a profile value of the wrong type', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['apiKey a number', { apiKey: 42 }, 'apiKey is a number, not a string'],
    ['apiKey an object', { apiKey: { key: 'x' } }, 'apiKey is an object, not a string'],
    ['apiKey an array', { apiKey: ['svc_live_x'] }, 'apiKey is an array, not a string'],
    ['webhookSecret 42', { webhookSecret: 42 }, 'webhookSecret is a number, not a string'],
    ['baseUrl null', { baseUrl: null }, 'baseUrl is null, not a string'],
    ['keyring a string', { keyring: 'yes' }, 'keyring is a string, not an object'],
    ['keyring.apiKey a string', { keyring: { account: 'work/1', apiKey: 'true' } }, 'keyring.apiKey is a string, not true or false'],
  ];
  for (const [title, broken, what] of cases) {
    it(`${title}: exit 2 naming the profile, the field and the fix; the file untouched`, async () => {
      const { dir, text } = configWith(broken);
      const result = await runInProcess(['me'], { SVC_CONFIG_DIR: dir });
      expect({ exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr }).toEqual({
        exitCode: 2,
        stdout: '',
        stderr: `error: usage_error: config: profile work: ${what}\n${FIX}\n`,
      });
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(text);
    });
  }

  it('another profile is used as ever; profiles ls names the broken one', async () => {
    const { dir } = configWith({ apiKey: 42 });
    const other = await runInProcess(['profiles', 'use', 'other'], { SVC_CONFIG_DIR: dir });
    expect(other.exitCode, other.stderr).toBe(0);
    const ls = await runInProcess(['profiles', 'ls'], { SVC_CONFIG_DIR: dir });
    expect({ exitCode: ls.exitCode, stderr: ls.stderr }).toEqual({ exitCode: 2, stderr: `error: usage_error: config: profile work: apiKey is a number, not a string\n${FIX}\n` });
  });

  it('svc login --profile work repairs it and keeps everything else in the file', async () => {
    const { dir } = configWith({ apiKey: 42, baseUrl: sb.info.baseUrl }, { cursors: { other: { [GOOD.baseUrl]: 'c-other' } }, someoneElses: { kept: true } });
    const login = await runInProcess(['login', '--profile', 'work', '--api-key-stdin'], { SVC_CONFIG_DIR: dir, SVC_KEYRING: '0' }, `${sb.apiKey('full')}\n`);
    expect(login.exitCode, login.stderr).toBe(0);
    const saved = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(saved).toEqual({
      currentProfile: 'work',
      profiles: { work: { baseUrl: sb.info.baseUrl, apiKey: sb.apiKey('full') }, other: GOOD },
      cursors: { other: { [GOOD.baseUrl]: 'c-other' } },
      someoneElses: { kept: true },
    });
  });

  it('svc profiles rm work removes it and keeps the rest', async () => {
    const { dir } = configWith({ webhookSecret: 42 });
    const rm = await runInProcess(['profiles', 'rm', 'work'], { SVC_CONFIG_DIR: dir });
    expect({ exitCode: rm.exitCode, stderr: rm.stderr }).toEqual({ exitCode: 0, stderr: 'Removed profile work.\n' });
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({ profiles: { other: GOOD }, cursors: {} });
  });
});

describe('a current profile of the wrong type', () => {
  it('is exit 2 naming the fix; profiles use sets it again and keeps the rest', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ currentProfile: 42, profiles: { other: GOOD } }), { mode: 0o600 });
    const me = await runInProcess(['me'], { SVC_CONFIG_DIR: dir });
    expect({ exitCode: me.exitCode, stderr: me.stderr }).toEqual({ exitCode: 2, stderr: "error: usage_error: config: currentProfile is a number, not a profile name\nhint: run 'svc profiles use <name>' to set it again\n" });
    const use = await runInProcess(['profiles', 'use', 'other'], { SVC_CONFIG_DIR: dir });
    expect(use.exitCode, use.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({ currentProfile: 'other', profiles: { other: GOOD }, cursors: {} });
  });
});

describe('a saved cursor of the wrong type', () => {
  for (const [title, cursor, what] of [
    ['42', 42, 'a number'],
    ['{}', {}, 'an object'],
  ] as const) {
    it(`${title}: events tail --resume is exit 2 naming the profile and the fix; --from-start replaces it`, async () => {
      const dir = tempConfigDir();
      const env = { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sb.info.baseUrl, SVC_API_KEY: sb.apiKey('full'), SVC_PROFILE: 'work' };
      const text = JSON.stringify({ profiles: {}, cursors: { work: { [sb.info.baseUrl]: cursor }, other: { [sb.info.baseUrl]: 'c-other' } } });
      writeFileSync(join(dir, 'config.json'), text, { mode: 0o600 });
      const tail = await runInProcess(['events', 'tail', '--resume'], env);
      expect({ exitCode: tail.exitCode, stdout: tail.stdout, stderr: tail.stderr }).toEqual({
        exitCode: 2,
        stdout: '',
        stderr: `error: usage_error: config: profile work: the saved cursor for ${sb.info.baseUrl} is ${what}, not a string\nhint: run 'svc events tail --resume --from-start' to save a new one, or 'svc profiles rm work'\n`,
      });
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(text);
      const fresh = await runInProcess(['events', 'tail', '--resume', '--from-start', '-o', 'jsonl'], env);
      expect(fresh.exitCode, fresh.stderr).toBe(0);
      const saved = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
      expect(typeof saved.cursors.work[sb.info.baseUrl]).toBe('string');
      expect(saved.cursors.other).toEqual({ [sb.info.baseUrl]: 'c-other' });
    });
  }
});

describe('members named __proto__ or constructor', () => {
  it('are ordinary members: nothing is inherited from them, and a write keeps them as they were', async () => {
    const dir = tempConfigDir();
    const text = '{"__proto__":{"currentProfile":"evil"},"profiles":{"__proto__":{"baseUrl":"http://127.0.0.1:9/v1","apiKey":"svc_live_proto000000000000000000000000"},"work":{"baseUrl":"http://127.0.0.1:9/v1"}},"cursors":{}}';
    writeFileSync(join(dir, 'config.json'), text, { mode: 0o600 });
    const ls = await runInProcess(['profiles', 'ls', '-o', 'json'], { SVC_CONFIG_DIR: dir });
    expect(ls.exitCode, ls.stderr).toBe(0);
    expect(JSON.parse(ls.stdout).map((row: { name: string; default: boolean }) => [row.name, row.default])).toEqual([
      ['__proto__', false],
      ['work', false],
    ]);
    const use = await runInProcess(['profiles', 'use', 'work'], { SVC_CONFIG_DIR: dir });
    expect(use.exitCode, use.stderr).toBe(0);
    const saved = readFileSync(join(dir, 'config.json'), 'utf8');
    expect(saved).toContain('"__proto__": {\n\t\t"currentProfile": "evil"');
    expect(saved).toContain('"__proto__": {\n\t\t\t"baseUrl"');
    expect(JSON.parse(saved, (key, value) => (key === '__proto__' ? undefined : value)).currentProfile).toBe('work');
  });
});
