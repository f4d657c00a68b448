/**
 * The next-page hint is a command to paste: it keeps every global option that was given and the
 * command's filters, and quotes every value for the shell. The cursor is the server's data, so a
 * real `sh` parses the hint here, with `svc` standing for a stub that prints its arguments.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiDouble } from '../helpers/double.js';
import { runAtTerminal, runInProcess } from '../helpers/run.js';

const CAMPAIGN = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';
const LINK = { id: '8b23f0e7-d976-4a9a-8f5b-3a0e7b9ada6d', status: 'ACTIVE', campaignId: CAMPAIGN, brandId: CAMPAIGN, createdAt: '2026-11-24T06:20:07Z' };

let api: ApiDouble;
let dir: string;

beforeEach(async () => {
  api = await new ApiDouble().start();
  dir = mkdtempSync(join(tmpdir(), 'svc-hint-'));
});
afterEach(async () => {
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The words a shell makes of `line` when `svc` is a stub: what pasting the hint would run. */
function argvWhenPasted(shell: string, line: string): string[] {
  const script = `svc() { for arg in "$@"; do printf '%s\\0' "$arg"; done; }\n${line}\n`;
  const out = execFileSync(shell, ['-c', script], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, MARK: join(dir, 'pwned') }, encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

/** A person's table names brands and campaigns: GET /me and GET /campaigns, read once. */
function scriptNames(): void {
  api.on('GET /me', { body: { tenant: { customFields: [] }, brands: [{ id: CAMPAIGN, name: 'Lucky Star' }] } });
  api.on('GET /campaigns?limit=100', { body: { items: [{ id: CAMPAIGN, name: 'Winter' }], nextCursor: null } });
}

async function hintFor(cursor: string, globals: string[]): Promise<string> {
  scriptNames();
  api.on('GET /personal-links?campaignId=' + CAMPAIGN + '&status=ACTIVE&limit=1', { body: { items: [LINK], nextCursor: cursor } });
  const result = await runAtTerminal([...globals, 'links', 'ls', '--campaign', CAMPAIGN, '--status', 'ACTIVE', '--limit', '1'], { SVC_API_KEY: 'svc_live_test0000000000', SVC_BASE_URL: api.baseUrl, SVC_CONFIG_DIR: join(dir, 'config') }, 120);
  expect(result.exitCode).toBe(0);
  const lines = result.stderr.split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^More links: svc /);
  return lines[0].slice('More links: '.length);
}

describe('the next-page hint', () => {
  const hostileCursors = ["x'; touch \"$MARK\"; echo '", '$(touch "$MARK")', '`touch "$MARK"`', 'a b\\c"d\'e;f|g&h>i<j*k?~l{m}', '-starts-with-a-dash'];

  for (const cursor of hostileCursors) {
    it(`keeps --profile, --base-url and the other global options, and quotes the cursor ${JSON.stringify(cursor)}: sh runs svc and nothing else`, async () => {
      const globals = ['--profile', 'ci-team.2', '--base-url', api.baseUrl, '--timeout', '9', '--max-retries', '1', '--no-color'];
      const hint = await hintFor(cursor, globals);
      const after = cursor.startsWith('-') ? [`--after=${cursor}`] : ['--after', cursor];
      const expected = ['--profile', 'ci-team.2', '--base-url', api.baseUrl, '--no-color', '--timeout', '9', '--max-retries', '1', 'links', 'ls', '--campaign', CAMPAIGN, '--status', 'ACTIVE', '--limit', '1', ...after];
      expect(argvWhenPasted('sh', hint)).toEqual(expected);
      expect(existsSync(join(dir, 'pwned'))).toBe(false);
    });
  }

  it('a cursor with control characters is shown escaped, and bash turns the hint back into the exact cursor', async () => {
    const cursor = 'c\x1b]0;t\x07\u009b2J\u202e';
    const hint = await hintFor(cursor, []);
    expect(hint).toBe(String.raw`svc links ls --campaign ${CAMPAIGN} --status ACTIVE --limit 1 --after $'c\x1b]0;t\x07\xc2\x9b2J\xe2\x80\xae'`.replace('${CAMPAIGN}', CAMPAIGN));
    expect(argvWhenPasted('bash', hint)).toEqual(['links', 'ls', '--campaign', CAMPAIGN, '--status', 'ACTIVE', '--limit', '1', '--after', cursor]);
  });

  it('repeats --fields among the command\'s flags, so the next page has the same columns', async () => {
    api.on('GET /personal-links?status=ACTIVE&limit=1', { body: { items: [LINK], nextCursor: 'c2' } });
    const result = await runAtTerminal(['links', 'ls', '--status', 'ACTIVE', '--fields', 'id,status', '--limit', '1'], { SVC_API_KEY: 'svc_live_test0000000000', SVC_BASE_URL: api.baseUrl, SVC_CONFIG_DIR: join(dir, 'config') }, 120);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('More links: svc links ls --status ACTIVE --fields id,status --limit 1 --after c2\n');
  });

  it('is not printed when stderr is not a terminal', async () => {
    scriptNames();
    api.on('GET /personal-links?limit=1', { body: { items: [LINK], nextCursor: 'c1' } });
    const result = await runInProcess(['-o', 'table', 'links', 'ls', '--limit', '1'], { SVC_API_KEY: 'svc_live_test0000000000', SVC_BASE_URL: api.baseUrl, SVC_CONFIG_DIR: join(dir, 'config') });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
  });
});
