/** `svc doctor` against the in-process sandbox: a good key passes every check; a revoked one fails key and api, exit 1. */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run.js';
import { tempConfigDir } from '../helpers/svc.js';
import { startReceiver, startSandbox, type TestSandbox } from '../sandbox/helpers.js';

let box: TestSandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  box = await startSandbox();
  receiver = await startReceiver(204);
});
afterAll(async () => {
  await box?.close();
  await receiver?.close();
});

const envFor = (key: string, configDir = tempConfigDir()) => ({ SVC_API_KEY: key, SVC_BASE_URL: box.info.baseUrl, SVC_CONFIG_DIR: configDir });

describe('svc doctor', () => {
  it('a good key with a webhook receiver: every check passes, exit 0', async () => {
    expect((await box.admin('PATCH', '/keys/full', { webhookUrl: receiver.url })).status).toBe(200);
    const configDir = tempConfigDir();
    const result = await runInProcess(['-o', 'json', 'doctor', '--webhook'], envFor(box.apiKey('full'), configDir));
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    const checks = JSON.parse(result.stdout);
    expect(checks.map((check: { check: string; ok: boolean }) => [check.check, check.ok])).toEqual([
      ['config', true],
      ['key', true],
      ['api', true],
      ['clock', true],
      ['webhook', true],
    ]);
    expect(checks.every((check: object) => Object.keys(check).join() === 'check,ok,detail')).toBe(true);
    expect(checks[0].detail).toBe(`no config file yet (${join(configDir, 'config.json')}); nothing saved`);
    expect(checks[1].detail).toMatch(/^svc_live_…\w{4} from SVC_API_KEY \(environment\)$/);
    expect(checks[2].detail).toMatch(new RegExp(`^${box.info.baseUrl.replace(/[.]/g, '\\.')} answered GET /me in \\d+ ms: key full, scopes PERSONAL_LINKS, REWARD_STORES, brands .+$`));
    expect(checks[3].detail).toMatch(/^local clock (in step with the server|\ds (ahead of|behind) the server) \(signatures allow 300s\)$/);
    expect(checks[4].detail).toBe(`URL ${receiver.url} answered the test delivery with 204`);
    expect(receiver.received).toHaveLength(1);
  });

  it('a table: one line per check with ✓ or ✗, and a fix under each failure', async () => {
    const configDir = tempConfigDir();
    writeFileSync(join(configDir, 'config.json'), '{"profiles":{},"cursors":{}}');
    chmodSync(join(configDir, 'config.json'), 0o644);
    await box.admin('PATCH', '/keys/links', { webhookUrl: null });
    const result = await runInProcess(['-o', 'table', 'doctor'], envFor(box.apiKey('links'), configDir));
    expect(result.exitCode).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`✗ config   file ${join(configDir, 'config.json')} is 0644, not 0600`);
    expect(lines[1]).toBe(`  fix: chmod 600 '${join(configDir, 'config.json')}'`);
    expect(lines.slice(2, 5).map((line) => line.slice(0, 10))).toEqual(['✓ key     ', '✓ api     ', '✓ clock   ']);
    // A key without a webhook URL is a normal set-up: ok, and it says so.
    expect(lines.slice(5)).toEqual(['✓ webhook  no webhook URL is set on this key (fine: the event feed works without one)']);
    // With --webhook a missing URL is a failure, with its fix.
    const tested = await runInProcess(['-o', 'table', 'doctor', '--webhook'], envFor(box.apiKey('links'), configDir));
    expect(tested.exitCode).toBe(1);
    expect(tested.stdout.trimEnd().split('\n').slice(5)).toEqual([
      '✗ webhook  no webhook URL is set on this key',
      '  fix: the operator\'s team sets it (sandbox: PATCH /_sandbox/keys/{name} {"webhookUrl": …}); the feed works without it (svc events tail)',
    ]);
  });

  it('a fresh sandbox key without a webhook URL passes every check (exit 0)', async () => {
    const configDir = tempConfigDir();
    await box.admin('PATCH', '/keys/links', { webhookUrl: null });
    const result = await runInProcess(['-o', 'jsonl', 'doctor'], envFor(box.apiKey('links'), configDir));
    expect(result.stderr).toBe('');
    expect(result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line)).map((check) => [check.check, check.ok])).toEqual([
      ['config', true],
      ['key', true],
      ['api', true],
      ['clock', true],
      ['webhook', true],
    ]);
    expect(result.exitCode).toBe(0);
  });

  it('a revoked key fails key and api (exit 1), not a crash', async () => {
    expect((await box.admin('PATCH', '/keys/other', { revoked: true })).status).toBe(200);
    const result = await runInProcess(['-o', 'jsonl', 'doctor'], envFor(box.apiKey('other')));
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe('');
    const checks = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(checks.map((check) => [check.check, check.ok])).toEqual([
      ['config', true],
      ['key', false],
      ['api', false],
      ['clock', false],
      ['webhook', false],
    ]);
    expect(checks[1].detail).toMatch(/^svc_live_…\w{4} from SVC_API_KEY \(environment\) was refused: .+/);
    expect(checks[2].detail).toMatch(new RegExp(`^GET ${box.info.baseUrl.replace(/[.]/g, '\\.')}/me: invalid_api_key: .+`));
    expect(checks.slice(3).map((check) => check.detail)).toEqual(['not checked: GET /me did not answer', 'not checked: GET /me did not answer']);
  });

  it('no key at all and an unreachable API are failed checks with fixes', async () => {
    const none = await runInProcess(['-o', 'jsonl', 'doctor'], { SVC_BASE_URL: box.info.baseUrl, SVC_CONFIG_DIR: tempConfigDir() });
    expect(none.exitCode).toBe(1);
    expect(none.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line).detail).slice(1)).toEqual([
      'no API key for profile default',
      'not checked: no API key',
      'not checked: GET /me did not answer',
      'not checked: GET /me did not answer',
    ]);
    const down = await runInProcess(['-o', 'jsonl', 'doctor'], { ...envFor(box.apiKey('full')), SVC_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(down.exitCode).toBe(1);
    expect(JSON.parse(down.stdout.split('\n')[2])).toEqual({ check: 'api', ok: false, detail: 'GET http://127.0.0.1:9/v1/me: could not reach http://127.0.0.1:9: connection refused' });
  });
});
