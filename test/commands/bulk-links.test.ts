/** `links create --from-file` end to end: results in order, bad rows, faults, re-runs that create nothing. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, svc, tempConfigDir, type SandboxHandle } from '../helpers/svc.js';

let sandbox: SandboxHandle;
let env: Record<string, string>;
let campaign: { id: string; brandIds: string[] };

const jsonLines = (text: string) => text.split('\n').filter(Boolean).map((line) => JSON.parse(line));

beforeAll(async () => {
  sandbox = await startSandbox();
  env = sandbox.env('full');
  campaign = jsonLines((await svc(['campaigns', 'ls'], { env })).stdout).find((c) => c.brandIds.length > 1);
});
afterAll(() => sandbox?.stop());

function file(name: string, text: string): string {
  const path = join(tempConfigDir(), name);
  writeFileSync(path, text);
  return path;
}

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
    expect(results[1].error).toMatchObject({ code: 'invalid_row', errors: [{ field: 'fullName', code: 'required' }] });
    expect(results[3].error.errors[0]).toMatchObject({ field: 'campaignId', code: 'invalid' });
    expect(results[4].error.errors[0]).toMatchObject({ field: 'field:VIP tier', code: 'invalid' });
    expect(results[2].link.customFields.map((answer: { textValue: string | null; checked: boolean | null }) => answer.textValue ?? answer.checked)).toEqual([null, 'Silver', false]);
    expect(run.stderr).toContain('created 2, replayed 0, failed 3 of 5 rows in');
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
    expect(results[1].error).toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it('exits 0 when every row succeeds, and 2 for unknown columns, single-link flags or no rows', async () => {
    const ok = await svc(['links', 'create', '--from-file', '-'], { env, input: `campaignId,fullName,brandId\n${campaign.id},Dora,${campaign.brandIds[0]}\n` });
    expect(ok.exitCode).toBe(0);
    const unknown = await svc(['links', 'create', '--from-file', '-'], { env, input: 'campaignId,name\nx,y\n' });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('unknown column "name"');
    const flags = await svc(['links', 'create', '--from-file', '-', '--campaign', campaign.id], { env, input: '' });
    expect(flags.exitCode).toBe(2);
    expect(flags.stderr).toContain('remove --campaign');
    const empty = await svc(['links', 'create', '--from-file', '-'], { env, input: 'campaignId,fullName\n' });
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain('holds no rows');
  });

  it('creates exactly one link per row under 25% injected faults, each reported once and in order; a re-run creates nothing', { timeout: 90_000 }, async () => {
    const rows = ['campaignId,fullName,brandId'];
    // Rows 1 and 2 are identical on purpose: identical rows are still two players.
    for (let i = 1; i <= 200; i++) rows.push(`${campaign.id},Player ${i === 2 ? 1 : i},${campaign.brandIds[i % 2]}`);
    const path = file('players.csv', rows.join('\n'));
    const before = await linkCount();
    await sandbox.admin('PUT', '/faults', { errorRate: 0.15, resetRate: 0.05, rateLimitRate: 0.05 });
    let first;
    try {
      first = await svc(['links', 'create', '--from-file', path, '--concurrency', '16'], { env, timeout: 85_000 });
    } finally {
      await sandbox.admin('PUT', '/faults', {});
    }
    expect(first.stderr.split('\n').filter((line) => line.startsWith('error'))).toEqual([]);
    expect(first.exitCode).toBe(0);
    const results = jsonLines(first.stdout);
    expect(results.map((result) => result.row)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(results.every((result) => result.ok)).toBe(true);
    expect(new Set(results.map((result) => result.link.id)).size).toBe(200);
    expect(await linkCount()).toBe(before + 200);

    const again = await svc(['links', 'create', '--from-file', path], { env });
    expect(again.exitCode).toBe(0);
    expect(jsonLines(again.stdout).map((result) => result.link.id)).toEqual(results.map((result) => result.link.id));
    expect(again.stderr).toContain('created 0, replayed 200, failed 0 of 200 rows');
    expect(await linkCount()).toBe(before + 200);
  });
});
