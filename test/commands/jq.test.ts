/**
 * --jq on the commands that print JSON, against the in-process sandbox: each value (a list's items one
 * by one; the whole document with -o json) goes through a real jq, results one a line, strings raw.
 * A bad program is exit 2 with jq's message before any request; -o table or csv with --jq is exit 2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run.js';
import { startSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { tempDir } from '../helpers/cleanup.js';
import { distFiles, distText, loadedWith } from '../helpers/dist.js';

let sandbox: TestSandbox;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox();
  env = { SVC_API_KEY: sandbox.apiKey('full'), SVC_BASE_URL: sandbox.info.baseUrl, SVC_CONFIG_DIR: tempDir() };
});
afterAll(async () => {
  await sandbox.close();
});

const run = (...argv: string[]) => runInProcess(argv, env);

describe('--jq', () => {
  it('campaigns ls: each item through the program, strings raw', async () => {
    const campaigns = (await sandbox.api('GET', '/campaigns?limit=25')).body.items as { id: string; name: string; status: string }[];
    expect(await run('campaigns', 'ls', '--jq', '"\\(.id)\\t\\(.name)"')).toEqual({
      exitCode: 0,
      stdout: campaigns.map((c) => `${c.id}\t${c.name}\n`).join(''),
      stderr: '',
    });
  });

  it('-o json: the whole list is one document (reduce, group_by, @csv)', async () => {
    const campaigns = (await sandbox.api('GET', '/campaigns?limit=25')).body.items as { id: string; brandIds: string[] }[];
    expect(await run('campaigns', 'ls', '-o', 'json', '--jq', 'reduce .[] as $c (0; . + ($c.brandIds | length))')).toEqual({
      exitCode: 0,
      stdout: `${campaigns.reduce((n, c) => n + c.brandIds.length, 0)}\n`,
      stderr: '',
    });
    expect(await run('campaigns', 'ls', '-o', 'json', '--jq', 'map([.id, (.brandIds | length)] | @csv) | .[]')).toEqual({
      exitCode: 0,
      stdout: campaigns.map((c) => `"${c.id}",${c.brandIds.length}\n`).join(''),
      stderr: '',
    });
  });

  it('me: one object, a nested value out of it', async () => {
    const me = (await sandbox.api('GET', '/me')).body as { brands: { name: string }[]; tenant: { locales: string[] } };
    expect(await run('me', '--jq', '.brands | map(.name) | join(", ")')).toEqual({ exitCode: 0, stdout: `${me.brands.map((b) => b.name).join(', ')}\n`, stderr: '' });
    expect(await run('me', '-o', 'json', '--jq', '.tenant.locales')).toEqual({ exitCode: 0, stdout: `${JSON.stringify(me.tenant.locales)}\n`, stderr: '' });
  });

  it('api and events tail: raw documents and the feed go through it too', async () => {
    const events = (await sandbox.api('GET', '/events?limit=100')).body.items as { id: string; type: string }[];
    expect(await run('events', 'tail', '--jq', 'select(.type | startswith("personal_link.")) | .id')).toEqual({
      exitCode: 0,
      stdout: events.filter((e) => e.type.startsWith('personal_link.')).map((e) => `${e.id}\n`).join(''),
      stderr: '',
    });
    expect(await run('api', 'GET', '/me', '--jq', '.key | keys | length > 0')).toEqual({ exitCode: 0, stdout: 'true\n', stderr: '' });
  });

  it('a program that does not compile: exit 2 with jq\'s message, and nothing is sent', async () => {
    const campaign = (await sandbox.api('GET', '/campaigns?limit=25')).body.items.find((c: { status: string; brandIds: string[] }) => c.status === 'ACTIVE' && c.brandIds.length === 1);
    const before = (await sandbox.api('GET', '/personal-links?limit=100')).body.items.length;
    const result = await run('links', 'create', '--campaign', campaign.id, '--name', 'Nobody', '--jq', '.id | select(');
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: jq_error: jq: error: syntax error, .* jq: 1 compile error\n$/);
    expect((await sandbox.api('GET', '/personal-links?limit=100')).body.items.length).toBe(before);
  });

  it('a run-time error: exit 2 with jq\'s message', async () => {
    const result = await run('me', '--jq', '.tenant | error("no \\(.id)")');
    const me = (await sandbox.api('GET', '/me')).body as { tenant: { id: string } };
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: `error: jq_error: jq: error (at /dev/stdin:1): no ${me.tenant.id}\n` });
  });

  it('--jq works on JSON only: -o table or csv is a usage error', async () => {
    expect(await run('campaigns', 'ls', '-o', 'csv', '--jq', '.id')).toEqual({ exitCode: 2, stdout: '', stderr: 'error: usage_error: --jq: works on JSON output (-o json or -o jsonl), not -o csv\n' });
  });

  it('jq is in a chunk of its own, never loaded at start-up', () => {
    const startup = loadedWith('cli.cjs');
    expect(startup.size).toBeGreaterThan(1);
    for (const file of startup) expect({ file, jq: distText(file).includes('jq-wasm') }).toEqual({ file, jq: false });
    expect(distFiles().some((file) => distText(file).includes('jq-wasm'))).toBe(true);
  });
});
