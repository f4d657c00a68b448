/**
 * `links create --from-file` at the command layer against the sandbox (in-process server): a line
 * over the 1 MiB cap fails alone and the rest are created; a bad header names the column.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run.js';
import { startSandbox, type TestSandbox } from '../sandbox/helpers.js';

let sandbox: TestSandbox;
let dir: string;
let env: Record<string, string>;
let campaignId: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  dir = mkdtempSync(join(tmpdir(), 'svc-bulk-input-'));
  env = { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sandbox.info.baseUrl, SVC_API_KEY: sandbox.apiKey('full') };
  const campaigns = (await sandbox.api('GET', '/campaigns')).body.items as { id: string; brandIds: string[] }[];
  campaignId = campaigns.find((campaign) => campaign.brandIds.length === 1)!.id;
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function linkCount(): Promise<number> {
  return ((await sandbox.api('GET', '/personal-links?limit=100')).body.items as unknown[]).length;
}

const SUMMARY = (created: number, failed: number, total: number) => new RegExp(`^created ${created}, replayed 0, failed ${failed} of ${total} rows in \\d+\\.\\ds\\n$`);
const KNOWN = 'known: campaignId, fullName, brandId, email, message, locale, field:<id or label>, idempotencyKey';

describe('bulk input at the command layer', () => {
  it('a 3 MB line is one failed row naming the cap; the rows around it are created (exit 1)', async () => {
    const path = join(dir, 'hostile.jsonl');
    const good = (name: string) => JSON.stringify({ campaignId, fullName: name });
    const hostile = JSON.stringify({ campaignId, fullName: 'x'.repeat(3 * 1024 * 1024) });
    writeFileSync(path, [good('Ada Lovelace'), hostile, good('Grace Hopper'), good('Alan Turing')].join('\n'));
    const result = await runInProcess(['links', 'create', '--from-file', path], env);
    const lines = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.row, line.ok, line.link?.campaignId])).toEqual([
      [1, true, campaignId],
      [2, false, undefined],
      [3, true, campaignId],
      [4, true, campaignId],
    ]);
    expect(lines[1]).toEqual({
      row: 2,
      ok: false,
      error: {
        code: 'invalid_row',
        title: 'Invalid row',
        detail: `row 2: line of ${Buffer.byteLength(hostile)} bytes is over the limit of 1048576 bytes (1 MiB) per line; not sent`,
        errors: [],
      },
    });
    expect(result.stderr).toMatch(SUMMARY(3, 1, 4));
    expect(result.exitCode).toBe(1);
  });

  it('an unknown column is named, before any request (exit 2)', async () => {
    const path = join(dir, 'players.csv');
    writeFileSync(path, `campaignId,fulName\n${campaignId},Ada\n`);
    const before = await linkCount();
    const result = await runInProcess(['links', 'create', '--from-file', path], env);
    expect(await linkCount()).toBe(before);
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: `error: usage_error: ${path}: unknown column "fulName" (${KNOWN})\n` });
  });

  it('a missing column is named, for standard input too (exit 2)', async () => {
    const result = await runInProcess(['links', 'create', '--from-file', '-'], env, `campaignId,email\n${campaignId},ada@example.com\n`);
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: `error: usage_error: standard input: missing column "fullName" (${KNOWN})\n` });
  });
});
