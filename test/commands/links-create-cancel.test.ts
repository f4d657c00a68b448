/** `links create` and `links cancel` end to end: the real binary in a pipe against `svc sandbox`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, svc, type SandboxHandle } from '../helpers/svc.js';

let sandbox: SandboxHandle;
let env: Record<string, string>;
/** campaigns of the seed data: two brands, one brand, completed */
let multiBrand: { id: string; brandIds: string[] };
let singleBrand: { id: string; brandIds: string[] };
let completed: { id: string };

const jsonLines = (text: string) => text.split('\n').filter(Boolean).map((line) => JSON.parse(line));

beforeAll(async () => {
  sandbox = await startSandbox();
  env = sandbox.env('full');
  const active = jsonLines((await svc(['campaigns', 'ls', '--all'], { env })).stdout);
  multiBrand = active.find((campaign) => campaign.brandIds.length > 1);
  singleBrand = active.find((campaign) => campaign.brandIds.length === 1);
  completed = jsonLines((await svc(['campaigns', 'ls', '--status', 'COMPLETED'], { env })).stdout)[0];
});
afterAll(() => sandbox?.stop());

describe.concurrent('links create', () => {
  it('creates a link from flags, custom fields by label and by type, and prints it as one JSON line', async () => {
    const run = await svc(
      ['links', 'create', '--campaign', multiBrand.id, '--brand', multiBrand.brandIds[1], '--name', 'Ada Lovelace', '--email', 'ada@example.com',
        '--message', 'Happy birthday', '--locale', 'de-DE', '--field', 'vip tier=gold', '--field', 'Marketing consent=yes', '--field', 'Player ID=P-42'],
      { env },
    );
    expect(run.exitCode).toBe(0);
    const [link] = jsonLines(run.stdout);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(link).toMatchObject({ campaignId: multiBrand.id, brandId: multiBrand.brandIds[1], status: 'ACTIVE' });
    expect(link.claimUrl).toMatch(/^https:\/\//);
    const answers = link.customFields.map((answer: { textValue: string | null; checked: boolean | null }) => answer.textValue ?? answer.checked);
    expect(answers).toEqual(['P-42', 'Gold', true]);
  });

  it('needs no --brand when the campaign has one usable brand', async () => {
    const run = await svc(['links', 'create', '--campaign', singleBrand.id, '--name', 'Bob'], { env });
    expect(run.exitCode).toBe(0);
    expect(jsonLines(run.stdout)[0].brandId).toBe(singleBrand.brandIds[0]);
  });

  it.each([
    ['--campaign: required', ['--name', 'Ada']],
    ['--name: required', ['--campaign', 'CAMPAIGN']],
    ['--campaign: not a valid id', ['--campaign', 'not-a-uuid', '--name', 'Ada']],
    ['--name: too long', ['--campaign', 'CAMPAIGN', '--name', 'x'.repeat(256)]],
    ['--email: not an e-mail address', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--email', 'nope']],
    ['--message: too long', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--message', 'm'.repeat(256)]],
    ['--locale: fr-FR is not enabled', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--locale', 'fr-FR']],
    ['no custom field with id or label "Team"', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--field', 'Team=Blue']],
    ['must be one of Bronze, Silver, Gold', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--field', 'VIP tier=Platinum']],
    ['use true or false', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--field', 'Marketing consent=maybe']],
    ['--field: expected NAME=VALUE', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--field', 'novalue']],
    ['--idempotency-key: too long', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--idempotency-key', 'k'.repeat(256)]],
    ['--concurrency: only with --from-file', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--concurrency', '4']],
  ])('exits 2 naming the flag: %s', async (message, args) => {
    const run = await svc(['links', 'create', ...args.map((arg) => (arg === 'CAMPAIGN' ? singleBrand.id : arg))], { env });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });

  it('asks for --brand (exit 2, listing the brands) when the campaign has several and there is no TTY', async () => {
    const run = await svc(['links', 'create', '--campaign', multiBrand.id, '--name', 'Ada'], { env });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--brand: required');
    for (const brandId of multiBrand.brandIds) expect(run.stderr).toContain(brandId);
  });

  it('replays with the same --idempotency-key: same body, stderr says replayed', async () => {
    const args = ['links', 'create', '--campaign', singleBrand.id, '--name', 'Replay Ray', '--idempotency-key', `replay-${Date.now()}`];
    const first = await svc(args, { env });
    const second = await svc(args, { env });
    expect([first.exitCode, second.exitCode]).toEqual([0, 0]);
    expect(second.stdout).toBe(first.stdout);
    expect(first.stderr).not.toContain('replayed');
    expect(second.stderr).toContain('replayed');
  });

  it('refuses a reused key with a different body (exit 1, the code on stderr)', async () => {
    const key = `reused-${Date.now()}`;
    await svc(['links', 'create', '--campaign', singleBrand.id, '--name', 'One', '--idempotency-key', key], { env });
    const run = await svc(['links', 'create', '--campaign', singleBrand.id, '--name', 'Two', '--idempotency-key', key], { env });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('error: idempotency_key_reused');
  });

  it('passes on the service\'s refusals: completed campaign, unknown campaign (exit 1), JSON problem with -o json', async () => {
    const done = await svc(['links', 'create', '--campaign', completed.id, '--name', 'Late', '--brand', multiBrand.brandIds[0]], { env });
    expect(done.exitCode).toBe(1);
    expect(done.stderr).toContain('campaign_not_active');
    const unknown = await svc(['links', 'create', '--campaign', '00000000-0000-4000-8000-000000000000', '--name', 'Nobody', '-o', 'json'], { env });
    expect(unknown.exitCode).toBe(1);
    expect(JSON.parse(unknown.stderr.trim().split('\n').pop()!)).toMatchObject({ code: 'campaign_not_found' });
  });

  it('exits 4 for a key without PERSONAL_LINKS', async () => {
    const run = await svc(['links', 'create', '--campaign', singleBrand.id, '--name', 'Ada'], { env: sandbox.env('stores') });
    expect(run.exitCode).toBe(4);
    expect(run.stderr).toContain('insufficient_scope');
  });
});

describe.concurrent('links cancel', () => {
  async function newLink(name = 'To Cancel'): Promise<string> {
    return jsonLines((await svc(['links', 'create', '--campaign', singleBrand.id, '--name', name], { env })).stdout)[0].id;
  }

  it('cancels, and cancelling again is still success with the first reason kept', async () => {
    const id = await newLink();
    const first = await svc(['links', 'cancel', id, '--reason', 'sent to the wrong player'], { env });
    expect(first.exitCode).toBe(0);
    expect(jsonLines(first.stdout)[0]).toMatchObject({ id, status: 'CANCELLED' });
    const again = await svc(['links', 'cancel', id, '--reason', 'duplicate', '--yes'], { env });
    expect(again.exitCode).toBe(0);
    expect(jsonLines(again.stdout)[0].cancelledAt).toBe(jsonLines(first.stdout)[0].cancelledAt);
  });

  it('replays with --idempotency-key', async () => {
    const id = await newLink();
    const args = ['links', 'cancel', id, '--reason', 'dup', '--idempotency-key', `cancel-${id}`];
    const first = await svc(args, { env });
    const second = await svc(args, { env });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).toContain('replayed');
  });

  it('explains a claimed link in words (exit 1)', async () => {
    const id = await newLink('Claimer');
    expect((await sandbox.admin('POST', `/links/${id}/claim`)).status).toBeLessThan(300);
    const run = await svc(['links', 'cancel', id, '--reason', 'too late'], { env });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('error: not_cancellable: cannot cancel this link: the player already claimed it');
  });

  it('explains a link created elsewhere in words (exit 1)', async () => {
    const id = await newLink('Not yours');
    const run = await svc(['links', 'cancel', id, '--reason', 'not mine'], { env: sandbox.env('other') });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('created by your team or another API key');
  });

  it.each([
    ['--reason: required', ['LINK'], 2],
    ['--reason: too long', ['LINK', '--reason', 'r'.repeat(1_001)], 2],
    ['ID: not a valid id', ['not-a-uuid', '--reason', 'x'], 2],
    ['not_found', ['00000000-0000-4000-8000-000000000000', '--reason', 'x'], 3],
  ])('refuses: %s', async (message, args, code) => {
    const id = await newLink();
    const run = await svc(['links', 'cancel', ...args.map((arg) => (arg === 'LINK' ? id : arg))], { env });
    expect(run.exitCode).toBe(code);
    expect(run.stderr).toContain(message);
  });
});

// Changes the account's settings, so it runs alone, after the concurrent tests.
describe('links create with a required custom field', () => {
  it('exits 2 naming a required custom field left unanswered', async () => {
    const me = JSON.parse((await svc(['me', '-o', 'json'], { env })).stdout);
    const playerId = me.tenant.customFields.find((field: { label: string }) => field.label === 'Player ID');
    await sandbox.admin('PATCH', '/settings', { requiredCustomFieldIds: [playerId.id] });
    try {
      const run = await svc(['links', 'create', '--campaign', singleBrand.id, '--name', 'Ada'], { env });
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain('--field: required custom field "Player ID" not answered');
    } finally {
      await sandbox.admin('PATCH', '/settings', { requiredCustomFieldIds: [] });
    }
  });
});
