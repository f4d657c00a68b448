/**
 * `links create --from-file` at the command layer against the sandbox (in-process server): a line
 * over the 1 MiB cap fails alone and the rest are created; a bad header names the column.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run.js';
import { startBulkSetup } from '../helpers/bulk.js';

const { sandbox, dir, env, campaignId } = await startBulkSetup();

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
