/** The real bin/svc against `svc sandbox --port 0`: reads, profiles, login, raw calls, redaction. */
import { statSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/run.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { BIN, tempConfigDir } from '../helpers/svc.js';

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});

const lines = (text: string) => text.split('\n').filter(Boolean).map((line) => JSON.parse(line));

describe('read commands', () => {
  it('me prints the API object as one JSON line in a pipe', async () => {
    const result = await svc(['me'], { env: sandbox.env() });
    expect(result.exitCode, result.stderr).toBe(0);
    const me = JSON.parse(result.stdout);
    expect(me.key.name).toBe('full');
    expect(me.tenant.locales).toContain('de-DE');
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('campaigns ls lists ACTIVE campaigns sorted by name; --status COMPLETED the others', async () => {
    const active = lines((await svc(['campaigns', 'ls'], { env: sandbox.env() })).stdout);
    expect(active.length).toBeGreaterThan(1);
    expect(active.every((c) => c.status === 'ACTIVE')).toBe(true);
    expect(active.map((c) => c.name)).toEqual([...active.map((c) => c.name)].sort());
    const completed = lines((await svc(['campaigns', 'ls', '--status', 'completed'], { env: sandbox.env() })).stdout);
    expect(completed.every((c) => c.status === 'COMPLETED')).toBe(true);
  });

  it('links ls --all pages through everything with small pages, same as one big page', async () => {
    const all = lines((await svc(['links', 'ls', '--all', '--limit', '2'], { env: sandbox.env() })).stdout);
    const big = lines((await svc(['links', 'ls', '--limit', '100'], { env: sandbox.env() })).stdout);
    expect(all.map((l) => l.id)).toEqual(big.map((l) => l.id));
  });

  it('links get reads one link; an unknown id is exit 3', async () => {
    const [first] = lines((await svc(['links', 'ls', '--limit', '1'], { env: sandbox.env() })).stdout);
    const got = await svc(['links', 'get', first.id], { env: sandbox.env() });
    expect(JSON.parse(got.stdout)).toEqual(first);
    const table = await svc(['links', 'get', first.id, '-o', 'table'], { env: sandbox.env() });
    expect(table.stdout).toContain(first.claimUrl);
    // Custom fields read by their labels, not their ids.
    const me = JSON.parse((await svc(['me'], { env: sandbox.env() })).stdout);
    for (const field of me.tenant.customFields) expect(table.stdout).toContain(`  ${field.label}: `);
    const missing = await svc(['links', 'get', '00000000-0000-4000-8000-000000000000'], { env: sandbox.env() });
    expect(missing.exitCode).toBe(3);
    expect(missing.stderr).toMatch(/^error: not_found: /m);
  });

  it('stores show renders sections, prices and options as a table', async () => {
    const stores = lines((await svc(['stores', 'ls'], { env: sandbox.env() })).stdout);
    const live = stores.find((s) => s.phase === 'LIVE');
    const result = await svc(['stores', 'show', live.id, '--brand', live.brandIds[0], '--country', 'DE', '--locale', 'de-DE', '-o', 'table'], { env: sandbox.env() });
    expect(result.exitCode, result.stderr).toBe(0);
    const json = JSON.parse((await svc(['stores', 'show', live.id, '--brand', live.brandIds[0], '--country', 'DE', '--locale', 'de-DE'], { env: sandbox.env() })).stdout);
    expect(result.stdout).toContain(json.name);
    for (const section of json.sections) expect(result.stdout).toContain(section.name);
    const gift = json.sections[0].items[0];
    expect(result.stdout).toContain(gift.coinPrice);
    expect(result.stdout).toContain(json.currency.symbol);
  });

  it('a key without the scope gets exit 4', async () => {
    const result = await svc(['stores', 'ls'], { env: sandbox.env('links') });
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toMatch(/insufficient_scope/);
  });

  it('api GET and --paginate give the raw objects', async () => {
    const me = await svc(['api', 'GET', '/me', '-o', 'jsonl'], { env: sandbox.env() });
    expect(JSON.parse(me.stdout).key.name).toBe('full');
    const items = lines((await svc(['api', 'GET', '/personal-links?limit=3', '--paginate'], { env: sandbox.env() })).stdout);
    const all = lines((await svc(['links', 'ls', '--all'], { env: sandbox.env() })).stdout);
    expect(items).toEqual(all);
  });

  it('--debug shows requests with the key and secrets redacted', async () => {
    const key = sandbox.key('full').apiKey;
    const result = await svc(['me', '--debug'], { env: sandbox.env() });
    expect(result.stderr).toContain('> GET ');
    expect(result.stderr).toContain('authorization: Bearer [redacted]');
    expect(result.stderr).not.toContain(key);
    expect(result.stdout).not.toContain(key);
  });
});

describe('login and profiles', () => {
  it('login checks the key, stores it with mode 0600, and profiles ls masks it', async () => {
    const configDir = tempConfigDir();
    const key = sandbox.key('full');
    const env = { SVC_CONFIG_DIR: configDir };
    const login = await svc(['login', '--profile', 'work', '--base-url', sandbox.baseUrl, '--api-key-stdin', '--webhook-secret-stdin'], {
      env,
      input: `${key.apiKey}\n${key.webhookSecret}\n`,
    });
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.stderr).not.toContain(key.apiKey);
    const file = readdirSync(configDir).find((name) => name.endsWith('.json'))!;
    expect(statSync(join(configDir, file)).mode & 0o777).toBe(0o600);

    const ls = await svc(['profiles', 'ls', '-o', 'json'], { env });
    const rows = JSON.parse(ls.stdout);
    expect(rows).toEqual([{ name: 'work', baseUrl: sandbox.baseUrl, apiKey: `svc_live_…${key.apiKey.slice(-4)}`, webhookSecret: true, default: true }]);
    expect(ls.stdout).not.toContain(key.apiKey);
    expect(ls.stdout).not.toContain(key.webhookSecret);

    const me = await svc(['me'], { env });
    expect(JSON.parse(me.stdout).key.name).toBe('full');
    expect((await svc(['--profile', 'work', 'me'], { env })).exitCode).toBe(0);
    expect((await svc(['me'], { env: { ...env, SVC_PROFILE: 'nope' } })).exitCode).toBe(4);

    expect((await svc(['profiles', 'rm', 'work'], { env })).exitCode).toBe(0);
    expect((await svc(['me'], { env })).exitCode).toBe(4);
    expect(readFileSync(join(configDir, file), 'utf8')).not.toContain(key.apiKey);
  });

  it('a refused key saves nothing and exits 4', async () => {
    const configDir = tempConfigDir();
    const result = await svc(['login', '--base-url', sandbox.baseUrl, '--api-key-stdin'], {
      env: { SVC_CONFIG_DIR: configDir },
      input: 'svc_live_notarealkey000000000000\n',
    });
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toMatch(/invalid_api_key/);
    const ls = await svc(['profiles', 'ls', '-o', 'json'], { env: { SVC_CONFIG_DIR: configDir } });
    expect(JSON.parse(ls.stdout)).toEqual([]);
  });

  it('profiles use switches the default; unknown names are usage errors', async () => {
    const configDir = tempConfigDir();
    const env = { SVC_CONFIG_DIR: configDir };
    for (const [name, key] of [['a', 'full'], ['b', 'links']]) {
      const result = await svc(['login', '--profile', name, '--base-url', sandbox.baseUrl, '--api-key-stdin'], { env, input: `${sandbox.key(key).apiKey}\n` });
      expect(result.exitCode, result.stderr).toBe(0);
    }
    expect(JSON.parse((await svc(['me'], { env })).stdout).key.name).toBe('full');
    expect((await svc(['profiles', 'use', 'b'], { env })).exitCode).toBe(0);
    expect(JSON.parse((await svc(['me'], { env })).stdout).key.name).toBe('links');
    expect((await svc(['profiles', 'use', 'zzz'], { env })).exitCode).toBe(2);
    expect((await svc(['profiles', 'rm', 'zzz'], { env })).exitCode).toBe(2);
  });

  it('the sandbox saves a "sandbox" profile unless --no-profile', async () => {
    const configDir = tempConfigDir();
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0'], { env: { ...process.env, SVC_CONFIG_DIR: configDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    const ready = await new Promise<string>((resolve) => child.stdout.once('data', (chunk) => resolve(String(chunk))));
    const info = JSON.parse(ready.split('\n')[0]);
    const me = await svc(['--profile', 'sandbox', 'me'], { env: { SVC_CONFIG_DIR: configDir } });
    expect(JSON.parse(me.stdout).key.name).toBe('full');
    const ls = JSON.parse((await svc(['profiles', 'ls', '-o', 'json'], { env: { SVC_CONFIG_DIR: configDir } })).stdout);
    expect(ls[0]).toMatchObject({ name: 'sandbox', baseUrl: info.baseUrl, webhookSecret: true });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});

describe('sandbox start-up', () => {
  it('a port already in use is a clear one-line error (exit 1)', async () => {
    const port = new URL(sandbox.baseUrl).port;
    const result = await svc(['sandbox', '--port', port, '--no-profile'], { env: { SVC_CONFIG_DIR: tempConfigDir() } });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`error: port_in_use: port ${port} on 127.0.0.1 is already in use`);
    expect(result.stdout).toBe('');
  });
});

describe('help and usage', () => {
  it('the help the build rendered for the shim is exactly what commander prints', async () => {
    const fast = await svc(['--help']);
    const live = await svc(['--no-color', '--help']);
    expect(fast.exitCode).toBe(0);
    expect(live.exitCode).toBe(0);
    expect(fast.stdout).toBe(live.stdout);
    expect(fast.stdout).toMatch(/^Usage: svc /);
  });

  it('./bin/svc runs as well as bin/svc.js', async () => {
    const { execa } = await import('execa');
    const { dirname, join } = await import('node:path');
    const result = await execa(join(dirname(BIN), 'svc'), ['--version'], { reject: false });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('--version prints the version; --help has examples', async () => {
    const version = await svc(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const help = await svc(['links', 'create', '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toMatch(/Examples:/);
  });

  it('no key and no sandbox: exit 4 naming how to fix it', async () => {
    const result = await svc(['me'], { env: { SVC_CONFIG_DIR: tempConfigDir() } });
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toMatch(/svc login/);
  });
});
