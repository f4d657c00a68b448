/** `links create --from-file` against the sandbox, in-process: results in order, bad rows, faults, re-runs that create nothing. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/cleanup.js';
import { svc } from '../helpers/run.js';
import { jsonLines } from '../helpers/lines.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

// Retries under injected faults wait in virtual time.
vi.mock('../../src/core/sleep.js', () => import('../helpers/virtual-time.js'));

let sandbox: InProcessSandbox;
let env: Record<string, string>;
let campaign: { id: string; brandIds: string[] };


beforeAll(async () => {
  sandbox = await startSandbox();
  env = sandbox.env('full');
  campaign = jsonLines((await svc(['campaigns', 'ls'], { env })).stdout).find((c) => c.brandIds.length > 1);
});

function file(name: string, text: string): string {
  const path = join(tempDir(), name);
  writeFileSync(path, text);
  return path;
}

/** The one stderr line of a finished bulk run (its duration varies). */
const summary = (counts: string) => new RegExp(`^${counts} in \\d+\\.\\ds\\n$`);

const invalidRow = (row: number, field: string, code: string, message: string) => ({
  row,
  ok: false,
  error: { code: 'invalid_row', title: 'Invalid row', detail: `row ${row}: ${message}`, errors: [{ field, code, message }] },
});

async function linkCount(): Promise<number> {
  return jsonLines((await svc(['links', 'ls', '--all', '--limit', '100'], { env })).stdout).length;
}

describe('links create --from-file', () => {
  it('reports a malformed row and still runs the rest, in input order (exit 1)', async () => {
    const rows = [
      'campaignId,fullName,brandId,email,field:VIP tier,field:Marketing consent',
      `${campaign.id},"Lovelace, Ada",${campaign.brandIds[0]},ada@example.com,Gold,yes`,
      `${campaign.id},,${campaign.brandIds[0]},,,`,
      `${campaign.id},"Two
Lines",${campaign.brandIds[1]},,silver,no`,
      `not-a-uuid,Bob,${campaign.brandIds[0]},,,`,
      `${campaign.id},Carol,${campaign.brandIds[0]},,Platinum,`,
    ];
    const run = await svc(['links', 'create', '--from-file', file('mixed.csv', rows.join('\r\n'))], { env });
    expect(run.exitCode).toBe(1);
    const results = jsonLines(run.stdout);
    expect(results.map((result) => [result.row, result.ok])).toEqual([[1, true], [2, false], [3, true], [4, false], [5, false]]);
    expect(results[1]).toEqual(invalidRow(2, 'fullName', 'required', 'fullName: required'));
    expect(results[3]).toEqual(invalidRow(4, 'campaignId', 'invalid', 'campaignId: not a valid id (expected a UUID): not-a-uuid'));
    expect(results[4].error.errors).toEqual([{ field: 'field:VIP tier', code: 'invalid', message: expect.stringMatching(/^field:VIP tier: /) }]);
    expect(results[2].link.customFields.map((answer: { textValue: string | null; checked: boolean | null }) => answer.textValue ?? answer.checked)).toEqual([null, 'Silver', false]);
    expect(run.stderr).toMatch(summary('created 2, replayed 0, failed 3 of 5 rows'));
  });

  it('reads JSON lines from stdin, service refusals reported per row', async () => {
    const lines = [
      { campaignId: campaign.id, fullName: 'Json One', brandId: campaign.brandIds[0] },
      { campaignId: campaign.id, fullName: 'No Brand' },
      { campaignId: campaign.id, fullName: 'Json Two', brandId: campaign.brandIds[1], customFields: [] },
    ];
    const run = await svc(['links', 'create', '--from-file', '-'], { env, input: lines.map((line) => JSON.stringify(line)).join('\n') });
    expect(run.exitCode).toBe(1);
    const results = jsonLines(run.stdout);
    expect(results.map((result) => result.ok)).toEqual([true, false, true]);
    expect(results[1]).toEqual({
      row: 2,
      ok: false,
      error: {
        type: 'https://docs.svc.example/errors/invalid_request',
        title: 'Invalid request',
        status: 400,
        code: 'invalid_request',
        detail: "brandId: brandId is required: the key can use more than one of the campaign's brands.",
        errors: [{ field: 'brandId', code: 'required', message: "brandId is required: the key can use more than one of the campaign's brands." }],
      },
    });
    expect(run.stderr).toMatch(summary('created 2, replayed 0, failed 1 of 3 rows'));
  });

  it('exits 0 when every row succeeds, and 2 for unknown columns, single-link flags or no rows', async () => {
    const ok = await svc(['links', 'create', '--from-file', '-'], { env, input: `campaignId,fullName,brandId\n${campaign.id},Dora,${campaign.brandIds[0]}\n` });
    expect(ok.exitCode).toBe(0);
    expect(ok.stderr).toMatch(summary('created 1, replayed 0, failed 0 of 1 rows'));
    const unknown = await svc(['links', 'create', '--from-file', '-'], { env, input: 'campaignId,name\nx,y\n' });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toBe('error: usage_error: standard input: unknown column "name" (known: campaignId, fullName, brandId, email, message, locale, field:<id or label>, idempotencyKey)\n');
    expect(unknown.stdout).toBe('');
    const flags = await svc(['links', 'create', '--from-file', '-', '--campaign', campaign.id], { env, input: '' });
    expect(flags.exitCode).toBe(2);
    expect(flags.stderr).toBe('error: usage_error: --from-file: every value comes from the file; remove --campaign\n');
    const empty = await svc(['links', 'create', '--from-file', '-'], { env, input: 'campaignId,fullName\n' });
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toBe('error: usage_error: --from-file: standard input holds no rows\n');
  });

  it('creates exactly one link per row under 25% injected faults, each reported once and in order; a re-run creates nothing', async () => {
    const rows = ['campaignId,fullName,brandId'];
    // Rows 1 and 2 are identical on purpose: identical rows are still two players.
    for (let i = 1; i <= 200; i++) rows.push(`${campaign.id},Player ${i === 2 ? 1 : i},${campaign.brandIds[i % 2]}`);
    const path = file('players.csv', rows.join('\n'));
    const before = await linkCount();
    await sandbox.admin('PUT', '/faults', { errorRate: 0.15, resetRate: 0.05, rateLimitRate: 0.05 });
    let first;
    try {
      first = await svc(['links', 'create', '--from-file', path, '--concurrency', '16'], { env });
    } finally {
      await sandbox.admin('PUT', '/faults', {});
    }
    // Rows whose answer was lost to an injected reset count as replayed when retried.
    const [, created, replayed] = /^created (\d+), replayed (\d+), failed 0 of 200 rows in \d+\.\ds\n$/.exec(first.stderr) ?? [];
    expect(Number(created) + Number(replayed), first.stderr).toBe(200);
    expect(first.exitCode).toBe(0);
    const results = jsonLines(first.stdout);
    expect(results.map((result) => result.row)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(results.every((result) => result.ok)).toBe(true);
    expect(new Set(results.map((result) => result.link.id)).size).toBe(200);
    expect(await linkCount()).toBe(before + 200);

    const again = await svc(['links', 'create', '--from-file', path], { env });
    expect(again.exitCode).toBe(0);
    expect(jsonLines(again.stdout).map((result) => result.link.id)).toEqual(results.map((result) => result.link.id));
    expect(again.stderr).toMatch(summary('created 0, replayed 200, failed 0 of 200 rows'));
    expect(await linkCount()).toBe(before + 200);
  });
});
