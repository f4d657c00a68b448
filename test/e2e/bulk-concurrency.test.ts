/**
 * Bulk at concurrency 20 in a real process: stderr holds the summary line and nothing else — no
 * MaxListenersExceededWarning or any other runtime warning (Node prints those only in a process).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/svc.js';
import { startSandbox, type TestSandbox } from '../sandbox/helpers.js';

let sandbox: TestSandbox;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  dir = mkdtempSync(join(tmpdir(), 'svc-bulk-concurrency-'));
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('links create --from-file --concurrency 20', () => {
  it('prints one result line per row and only the summary on stderr', async () => {
    const campaigns = (await sandbox.api('GET', '/campaigns')).body.items as { id: string; brandIds: string[] }[];
    const campaignId = campaigns.find((campaign) => campaign.brandIds.length === 1)!.id;
    const path = join(dir, 'players.csv');
    const rows = 60;
    writeFileSync(path, ['campaignId,fullName', ...Array.from({ length: rows }, (_, i) => `${campaignId},Player ${i + 1}`)].join('\n'));
    const result = await svc(['links', 'create', '--from-file', path, '--concurrency', '20'], {
      env: { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sandbox.info.baseUrl, SVC_API_KEY: sandbox.apiKey('full') },
    });
    expect(result.stderr).toMatch(new RegExp(`^created ${rows}, replayed 0, failed 0 of ${rows} rows in \\d+\\.\\ds$`));
    const lines = result.stdout.split('\n').map((line) => JSON.parse(line) as { row: number; ok: boolean });
    expect(lines.map((line) => [line.row, line.ok])).toEqual(Array.from({ length: rows }, (_, i) => [i + 1, true]));
    expect(result.exitCode).toBe(0);
  });
});
