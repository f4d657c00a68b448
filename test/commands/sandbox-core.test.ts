/** svc in-process against the sandbox: reads, profiles, login, raw calls, redaction, sandbox start-up. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cleanup.js';
import { svc } from '../helpers/run.js';
import { runAtTerminal } from '../helpers/run.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});

const lines = (text: string) => text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
const jsonLines = (items: unknown[]) => items.map((item) => `${JSON.stringify(item)}\n`).join('');

/** GET of the API itself, as the `full` key: what svc must print unchanged. */
async function apiGet<T = unknown>(path: string, key = 'full'): Promise<T> {
  const response = await fetch(`${sandbox.baseUrl}${path}`, { headers: { authorization: `Bearer ${sandbox.key(key).apiKey}` } });
  return (await response.json()) as T;
}

describe('read commands', () => {
  it('me prints the API object as one JSON line in a pipe', async () => {
    const result = await svc(['me'], { env: sandbox.env() });
    expect(result).toEqual({ exitCode: 0, stdout: `${JSON.stringify(await apiGet('/me'))}\n`, stderr: '' });
    expect(JSON.parse(result.stdout).key.name).toBe('full');
  });

  it('campaigns ls lists ACTIVE campaigns sorted by name; --status COMPLETED the others', async () => {
    const active = await svc(['campaigns', 'ls'], { env: sandbox.env() });
    expect(active.stderr).toBe('');
    expect(lines(active.stdout).map((c) => [c.name, c.status])).toEqual([
      ['Birthday Gifts 2026', 'ACTIVE'],
      ['High Roller Rewards', 'ACTIVE'],
      ['VIP Winter Gifts', 'ACTIVE'],
    ]);
    expect(active.stdout).toBe(jsonLines((await apiGet<{ items: unknown[] }>('/campaigns')).items));
    const completed = await svc(['campaigns', 'ls', '--status', 'completed'], { env: sandbox.env() });
    expect(completed.stdout).toBe(jsonLines((await apiGet<{ items: unknown[] }>('/campaigns?status=COMPLETED')).items));
    expect(lines(completed.stdout).map((c) => [c.name, c.status])).toEqual([['Summer Promo 2026', 'COMPLETED']]);
  });

  it('links ls --all pages through everything with small pages, same as one big page', async () => {
    const all = await svc(['links', 'ls', '--all', '--limit', '2'], { env: sandbox.env() });
    const big = await svc(['links', 'ls', '--limit', '100'], { env: sandbox.env() });
    expect(all.stdout).toBe(big.stdout);
    expect(big.stdout).toBe(jsonLines((await apiGet<{ items: unknown[] }>('/personal-links?limit=100')).items));
    expect(all.stderr).toBe('');
  });

  it('links get reads one link; an unknown id is exit 3', async () => {
    const [first] = lines((await svc(['links', 'ls', '--limit', '1'], { env: sandbox.env() })).stdout);
    const got = await svc(['links', 'get', first.id], { env: sandbox.env() });
    expect(got).toEqual({ exitCode: 0, stdout: `${JSON.stringify(first)}\n`, stderr: '' });
    const table = await svc(['links', 'get', first.id, '-o', 'table'], { env: sandbox.env() });
    // Custom fields read by their labels, not their ids.
    expect(table.stdout).toBe(
      [
        `Claim URL  ${first.claimUrl}`,
        `ID         ${first.id}`,
        'Status     ACTIVE',
        'Campaign   catalog selection',
        `Brand      Golden Reels (${first.brandId})`,
        `Created    ${first.createdAt}`,
        'Expires    never',
        `Updated    ${first.updatedAt}`,
        'Custom fields',
        '  Player ID: P-1004',
        '  VIP tier: unanswered',
        '  Marketing consent: yes',
        '',
      ].join('\n'),
    );
    const missing = await svc(['links', 'get', '00000000-0000-4000-8000-000000000000'], { env: sandbox.env() });
    expect(missing).toEqual({ exitCode: 3, stdout: '', stderr: 'error: not_found: The personal link was not found or is not accessible with this key.\n' });
  });

  it('stores show renders sections, prices and options as a table', async () => {
    const stores = lines((await svc(['stores', 'ls'], { env: sandbox.env() })).stdout);
    const live = stores.find((s) => s.phase === 'LIVE');
    const args = ['stores', 'show', live.id, '--brand', live.brandIds[0], '--country', 'DE', '--locale', 'de-DE'];
    const result = await svc([...args, '-o', 'table'], { env: sandbox.env() });
    expect(result.exitCode, result.stderr).toBe(0);
    const json = await svc(args, { env: sandbox.env() });
    const store = await apiGet<{ sections: { items: { name: string; productId: string }[] }[] }>(
      `/reward-stores/${live.id}?brandId=${live.brandIds[0]}&country=DE&locale=de-DE`,
    );
    expect(json.stdout).toBe(`${JSON.stringify(store)}\n`);
    const id = (name: string) => store.sections.flatMap((section) => section.items).find((gift) => gift.name === name)!.productId;
    const head = [`Winter Rewards  ${live.id}`, `LIVE from ${live.startsAt} · Lucky Star Casino · DE · de-DE · prices in Sternmünzen (SM)`, '', 'Spend your coins on winter gifts.', 'Delivery in 5 to 7 days.'];
    // Wide enough for everything: every section, each gift with its price in the store's coin symbol, options and combinations whole.
    const wide = await runAtTerminal(args, sandbox.env(), 200);
    expect(wide).toEqual({
      exitCode: 0,
      stderr: '',
      stdout: [
        ...head,
        '',
        'Kleidung',
        '┌─────────────────┬─────────┬──────────────────────────────────────────┬────────────────────────┬──────────────────────────────────────┐',
        '│ Gift            │ Price   │ Options                                  │ Orderable combinations │ Product ID                           │',
        '├─────────────────┼─────────┼──────────────────────────────────────────┼────────────────────────┼──────────────────────────────────────┤',
        `│ Kapuzenpullover │ 1100 SM │ Größe (size): S, M, L                    │ size=S color=black     │ ${id('Kapuzenpullover')} │`,
        '│                 │         │ Farbe (color): Schwarz=black, Weiß=white │ size=S color=white     │                                      │',
        '│                 │         │                                          │ size=M color=black     │                                      │',
        '│                 │         │                                          │ size=M color=white     │                                      │',
        '│                 │         │                                          │ size=L color=black     │                                      │',
        '│                 │         │                                          │ (1 not orderable now)  │                                      │',
        '└─────────────────┴─────────┴──────────────────────────────────────────┴────────────────────────┴──────────────────────────────────────┘',
        '',
        'Elektronik',
        '┌─────────────────────┬─────────┬─────────┬────────────────────────┬──────────────────────────────────────┐',
        '│ Gift                │ Price   │ Options │ Orderable combinations │ Product ID                           │',
        '├─────────────────────┼─────────┼─────────┼────────────────────────┼──────────────────────────────────────┤',
        `│ Kabellose Kopfhörer │ 2500 SM │ —       │ no options             │ ${id('Kabellose Kopfhörer')} │`,
        '└─────────────────────┴─────────┴─────────┴────────────────────────┴──────────────────────────────────────┘',
        '',
        'Intelligentes Zuhause',
        '┌────────────────────────────┬─────────┬──────────────────────────────────────────────┬────────────────────────┬──────────────────────────────────────┐',
        '│ Gift                       │ Price   │ Options                                      │ Orderable combinations │ Product ID                           │',
        '├────────────────────────────┼─────────┼──────────────────────────────────────────────┼────────────────────────┼──────────────────────────────────────┤',
        `│ Intelligenter Lautsprecher │ 1800 SM │ Farbe (color): Anthrazit=charcoal, Sand=sand │ color=charcoal         │ ${id('Intelligenter Lautsprecher')} │`,
        '│                            │         │                                              │ color=sand             │                                      │',
        '└────────────────────────────┴─────────┴──────────────────────────────────────────────┴────────────────────────┴──────────────────────────────────────┘',
        '',
        'Geschenkkarten',
        '┌──────────────────────┬────────┬─────────┬────────────────────────┬──────────────────────────────────────┐',
        '│ Gift                 │ Price  │ Options │ Orderable combinations │ Product ID                           │',
        '├──────────────────────┼────────┼─────────┼────────────────────────┼──────────────────────────────────────┤',
        `│ Kaffee-Geschenkkarte │ 500 SM │ —       │ no options             │ ${id('Kaffee-Geschenkkarte')} │`,
        '├──────────────────────┼────────┼─────────┼────────────────────────┼──────────────────────────────────────┤',
        `│ Adventskalender      │ 700 SM │ —       │ no options             │ ${id('Adventskalender')} │`,
        '└──────────────────────┴────────┴─────────┴────────────────────────┴──────────────────────────────────────┘',
        '',
      ].join('\n'),
    });
    // In a pipe a view is 80 columns wide: where a section's table does not fit whole, each gift is a
    // block that keeps its product id, price, options and orderable combinations whole (they wrap).
    expect(result.stdout).toBe(
      [
        head[0],
        `LIVE from ${live.startsAt} · Lucky Star Casino · DE · de-DE · prices`,
        'in Sternmünzen (SM)',
        ...head.slice(2),
        '',
        'Kleidung',
        `  Kapuzenpullover  1100 SM  ${id('Kapuzenpullover')}`,
        '    Weicher Baumwoll-Kapuzenpullover.',
        '    Maschinenwaschbar.',
        '    Größe (size): S, M, L',
        '    Farbe (color): Schwarz=black, Weiß=white',
        '    Orderable: size=S color=black · size=S color=white · size=M color=black ·',
        '               size=M color=white · size=L color=black · (1 not orderable now)',
        '',
        'Elektronik',
        `  Kabellose Kopfhörer  2500 SM  ${id('Kabellose Kopfhörer')}`,
        '    Over-Ear-Kopfhörer mit Geräuschunterdrückung.',
        '    No options',
        '',
        'Intelligentes Zuhause',
        `  Intelligenter Lautsprecher  1800 SM  ${id('Intelligenter Lautsprecher')}`,
        '    Sprachgesteuerter Lautsprecher.',
        '    Farbe (color): Anthrazit=charcoal, Sand=sand',
        '    Orderable: color=charcoal · color=sand',
        '',
        'Geschenkkarten',
        `  Kaffee-Geschenkkarte  500 SM  ${id('Kaffee-Geschenkkarte')}`,
        '    No options',
        `  Adventskalender  700 SM  ${id('Adventskalender')}`,
        '    No options',
        '',
      ].join('\n'),
    );
    expect(Math.max(...result.stdout.split('\n').map((line) => stringWidth(line)))).toBeLessThanOrEqual(80);
  });

  it('a key without the scope gets exit 4', async () => {
    const result = await svc(['stores', 'ls'], { env: sandbox.env('links') });
    expect(result).toEqual({ exitCode: 4, stdout: '', stderr: 'error: insufficient_scope: This call needs the REWARD_STORES scope, which the key lacks.\n' });
  });

  it('api GET and --paginate give the raw objects', async () => {
    const me = await svc(['api', 'GET', '/me', '-o', 'jsonl'], { env: sandbox.env() });
    expect(me).toEqual({ exitCode: 0, stdout: `${JSON.stringify(await apiGet('/me'))}\n`, stderr: '' });
    const items = await svc(['api', 'GET', '/personal-links?limit=3', '--paginate'], { env: sandbox.env() });
    const all = await svc(['links', 'ls', '--all'], { env: sandbox.env() });
    expect(items.stdout).toBe(all.stdout);
    expect(lines(items.stdout).length).toBeGreaterThan(3);
  });

  it('--debug shows requests with the key and secrets redacted', async () => {
    const key = sandbox.key('full').apiKey;
    const result = await svc(['me', '--debug'], { env: sandbox.env() });
    const body = JSON.stringify(await apiGet('/me'));
    expect(result.stdout).toBe(`${body}\n`);
    expect(result.stderr.split('\n')).toEqual([
      `> GET ${sandbox.baseUrl}/me`,
      '> authorization: Bearer [redacted]',
      expect.stringMatching(/^> user-agent: svc\/\S+ node\/\d+\.\d+\.\d+$/),
      '> accept: application/json',
      expect.stringMatching(/^< 200 \(\d+ ms\)$/),
      '< content-type: application/json',
      `< ${body}`,
      '',
    ]);
    expect(result.stderr).not.toContain(key);
  });
});

describe('login and profiles', () => {
  it('login checks the key, stores it with mode 0600, and profiles ls masks it', async () => {
    const configDir = tempDir();
    const key = sandbox.key('full');
    // SVC_KEYRING=0: the key goes to the 0600 file, never to the keyring of the machine running the tests.
    const env = { SVC_CONFIG_DIR: configDir, SVC_KEYRING: '0' };
    const masked = `svc_live_…${key.apiKey.slice(-4)}`;
    const login = await svc(['login', '--profile', 'work', '--base-url', sandbox.baseUrl, '--api-key-stdin', '--webhook-secret-stdin'], {
      env,
      input: `${key.apiKey}\n${key.webhookSecret}\n`,
    });
    expect(login).toEqual({
      exitCode: 0,
      stdout: '',
      stderr:
        `Logged in as key full (${masked}, scopes PERSONAL_LINKS, REWARD_STORES) at ${sandbox.baseUrl}; saved as profile work.\n` +
        `note: no OS keyring is usable here; the key and webhook secret went to ${join(configDir, 'config.json')} (mode 0600).\n`,
    });
    const file = readdirSync(configDir).find((name) => name.endsWith('.json'))!;
    expect(statSync(join(configDir, file)).mode & 0o777).toBe(0o600);

    const ls = await svc(['profiles', 'ls', '-o', 'json'], { env });
    expect(ls.stdout).toBe(`${JSON.stringify([{ name: 'work', baseUrl: sandbox.baseUrl, apiKey: masked, webhookSecret: true, storage: 'file', default: true }], null, 2)}\n`);

    const me = `${JSON.stringify(await apiGet('/me'))}\n`;
    expect(await svc(['me'], { env })).toEqual({ exitCode: 0, stdout: me, stderr: '' });
    expect(await svc(['--profile', 'work', 'me'], { env })).toEqual({ exitCode: 0, stdout: me, stderr: '' });
    expect(await svc(['me'], { env: { ...env, SVC_PROFILE: 'nope' } })).toEqual({
      exitCode: 4,
      stdout: '',
      stderr: "error: no_api_key: no profile named nope\nhint: run 'svc login --profile nope', set SVC_API_KEY, or start 'svc sandbox' and use --profile sandbox\n",
    });

    expect(await svc(['profiles', 'rm', 'work'], { env })).toEqual({ exitCode: 0, stdout: '', stderr: 'Removed profile work.\n' });
    expect(await svc(['me'], { env })).toEqual({
      exitCode: 4,
      stdout: '',
      stderr: "error: no_api_key: no API key configured for profile default\nhint: run 'svc login', set SVC_API_KEY, or start 'svc sandbox' and use --profile sandbox\n",
    });
    expect(readFileSync(join(configDir, file), 'utf8')).not.toContain(key.apiKey);
  });

  it('a refused key saves nothing and exits 4', async () => {
    const configDir = tempDir();
    const result = await svc(['login', '--base-url', sandbox.baseUrl, '--api-key-stdin'], {
      env: { SVC_CONFIG_DIR: configDir },
      input: 'svc_live_notarealkey000000000000\n',
    });
    expect(result).toEqual({ exitCode: 4, stdout: '', stderr: 'error: invalid_api_key: The API key is not known.\n' });
    expect(await svc(['profiles', 'ls', '-o', 'json'], { env: { SVC_CONFIG_DIR: configDir } })).toEqual({ exitCode: 0, stdout: '[]\n', stderr: '' });
  });

  it('profiles use switches the default; a profile that does not exist is exit 3', async () => {
    const configDir = tempDir();
    const env = { SVC_CONFIG_DIR: configDir, SVC_KEYRING: '0' };
    for (const [name, key] of [['a', 'full'], ['b', 'links']]) {
      const result = await svc(['login', '--profile', name, '--base-url', sandbox.baseUrl, '--api-key-stdin'], { env, input: `${sandbox.key(key).apiKey}\n` });
      expect(result.exitCode, result.stderr).toBe(0);
    }
    expect(JSON.parse((await svc(['me'], { env })).stdout).key.name).toBe('full');
    expect(await svc(['profiles', 'use', 'b'], { env })).toEqual({ exitCode: 0, stdout: '', stderr: 'Default profile is now b.\n' });
    expect((await svc(['me'], { env })).stdout).toBe(`${JSON.stringify(await apiGet('/me', 'links'))}\n`);
    expect(await svc(['profiles', 'use', 'zzz'], { env })).toEqual({
      exitCode: 3,
      stdout: '',
      stderr: 'error: not_found: no profile named zzz\nhint: see svc profiles ls, or create it with svc login --profile zzz\n',
    });
    expect(await svc(['profiles', 'rm', 'zzz'], { env })).toEqual({ exitCode: 3, stdout: '', stderr: 'error: not_found: no profile named zzz\nhint: see svc profiles ls\n' });
  });
});

describe('sandbox start-up', () => {
  it('a port already in use is a clear one-line error (exit 1)', async () => {
    const port = new URL(sandbox.baseUrl).port;
    const result = await svc(['sandbox', '--port', port, '--no-profile']);
    expect(result).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `error: port_in_use: port ${port} on 127.0.0.1 is already in use\nhint: pick another with --port, or --port 0 for a free one\n`,
    });
  });
});

describe('help', () => {
  it('the help of a verb has examples', async () => {
    const help = await svc(['links', 'create', '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stderr).toBe('');
    const examples = help.stdout.slice(help.stdout.indexOf('\nExamples:\n'));
    expect(examples).toMatch(/^\nExamples:\n(  \$ (svc|cat) .+\n)+\n$/);
  });
});
