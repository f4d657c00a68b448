/**
 * Custom fields as columns by label (issue 31.2): `--fields id,field:"Player ID"` (label or id) in
 * CSV, tables and JSON lines, and -o csv without --fields, against the sandbox, whose account has
 * the fields "Player ID", "VIP tier" and "Marketing consent" and team links answering them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run.js';
import { startSandboxWithConfig, type TestSandbox } from '../sandbox/helpers.js';

let sandbox: TestSandbox;
let env: Record<string, string>;
const run = (...argv: string[]) => runInProcess(argv, env);

beforeAll(async () => {
  ({ sandbox, env } = await startSandboxWithConfig());
});
afterAll(async () => {
  await sandbox.close();
});

/** The team link answering "Player ID" with P-1001, as the API gives it. */
async function playerOne(): Promise<{ id: string; customFields: { fieldId: string }[] }> {
  const found = await run('-o', 'jsonl', 'links', 'ls', '--field', 'Player ID=P-1001');
  const [link] = found.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line));
  return link;
}

describe('custom fields as columns', () => {
  it('--fields field:LABEL and field:ID: CSV headed by the labels, each answer its own cell', async () => {
    const link = await playerOne();
    const vipTierId = link.customFields[1].fieldId;
    const result = await run('-o', 'csv', 'links', 'ls', '--field', 'Player ID=P-1001', '--fields', `id,field:Player ID,field:${vipTierId},field:marketing consent`);
    expect(result).toEqual({ exitCode: 0, stdout: `id,Player ID,VIP tier,Marketing consent\n${link.id},P-1001,Gold,true\n`, stderr: '' });
  });

  it('the same fields as a table and as JSON lines keyed by label', async () => {
    const link = await playerOne();
    const table = await run('-o', 'table', 'links', 'ls', '--field', 'Player ID=P-1001', '--fields', 'id,field:Player ID,field:VIP tier');
    expect(table).toEqual({
      exitCode: 0,
      stdout: [
        '┌──────────────────────────────────────┬───────────┬──────────┐',
        '│ id                                   │ Player ID │ VIP tier │',
        `│ ${link.id} │ P-1001    │ Gold     │`,
        '└──────────────────────────────────────┴───────────┴──────────┘',
        '',
      ].join('\n'),
      stderr: '',
    });
    const jsonl = await run('-o', 'jsonl', 'links', 'get', link.id, '--fields', 'status,field:Player ID');
    expect(jsonl).toEqual({ exitCode: 0, stdout: '{"status":"ACTIVE","Player ID":"P-1001"}\n', stderr: '' });
  });

  it('-o csv without --fields: one column per custom field, in the account\'s order, where the JSON cell was', async () => {
    const link = await playerOne();
    const result = await run('-o', 'csv', 'links', 'ls', '--field', 'Player ID=P-1001');
    const [header, row, end] = result.stdout.split('\n');
    expect(header).toBe('id,campaignId,selection,brandId,status,claimUrl,Player ID,VIP tier,Marketing consent,expiresAt,createdAt,approvedAt,claimedAt,cancelledAt,updatedAt');
    expect(row.split(',').slice(0, 1).concat(row.split(',').slice(6, 9))).toEqual([link.id, 'P-1001', 'Gold', 'true']);
    expect(end).toBe('');
  });

  it('a label the account has not: exit 2 naming --fields and the account\'s fields', async () => {
    const result = await run('links', 'ls', '--fields', 'id,field:Player Number');
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: 'error: usage_error: --fields: no custom field with id or label "Player Number" (the account\'s fields: "Player ID", "VIP tier", "Marketing consent")\n' });
  });
});
