/** `links create` and `links cancel` in a pipe (no TTY), run in-process against the sandbox. */
import { beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/run.js';
import { jsonLines, replayedNote } from '../helpers/lines.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

let sandbox: InProcessSandbox;
let env: Record<string, string>;
/** campaigns of the seed data: two brands, one brand, completed */
let multiBrand: { id: string; brandIds: string[] };
let singleBrand: { id: string; brandIds: string[] };
let completed: { id: string };
/** custom field ids of the seed account, by label */
let fieldIds: Record<string, string>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;


beforeAll(async () => {
  sandbox = await startSandbox();
  env = sandbox.env('full');
  const active = jsonLines((await svc(['campaigns', 'ls', '--all'], { env })).stdout);
  multiBrand = active.find((campaign) => campaign.brandIds.length > 1);
  singleBrand = active.find((campaign) => campaign.brandIds.length === 1);
  completed = jsonLines((await svc(['campaigns', 'ls', '--status', 'COMPLETED'], { env })).stdout)[0];
  const me = JSON.parse((await svc(['me'], { env })).stdout);
  fieldIds = Object.fromEntries(me.tenant.customFields.map((field: { id: string; label: string }) => [field.label, field.id]));
});

describe.concurrent('links create', () => {
  it('creates a link from flags, custom fields by label and by type, and prints it as one JSON line', async () => {
    const run = await svc(
      ['links', 'create', '--campaign', multiBrand.id, '--brand', multiBrand.brandIds[1], '--name', 'Ada Lovelace', '--email', 'ada@example.com',
        '--message', 'Happy birthday', '--locale', 'de-DE', '--field', 'vip tier=gold', '--field', 'Marketing consent=yes', '--field', 'Player ID=P-42'],
      { env },
    );
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    const [link] = jsonLines(run.stdout);
    expect(run.stdout).toBe(`${JSON.stringify(link)}\n`);
    expect(link.id).toMatch(UUID);
    expect(link.createdAt).toMatch(TIMESTAMP);
    expect(link).toEqual({
      id: link.id,
      campaignId: multiBrand.id,
      selection: null,
      brandId: multiBrand.brandIds[1],
      status: 'ACTIVE',
      // The sandbox's own gift site.
      claimUrl: `${new URL(sandbox.baseUrl).origin}/claim/${link.id}`,
      customFields: [
        { fieldId: fieldIds['Player ID'], textValue: 'P-42', checked: null },
        { fieldId: fieldIds['VIP tier'], textValue: 'Gold', checked: null },
        { fieldId: fieldIds['Marketing consent'], textValue: null, checked: true },
      ],
      expiresAt: null,
      createdAt: link.createdAt,
      approvedAt: null,
      claimedAt: null,
      cancelledAt: null,
      updatedAt: link.createdAt,
    });
  });

  it('needs no --brand when the campaign has one usable brand', async () => {
    const run = await svc(['links', 'create', '--campaign', singleBrand.id, '--name', 'Bob'], { env });
    expect(run.exitCode).toBe(0);
    expect(jsonLines(run.stdout)[0].brandId).toBe(singleBrand.brandIds[0]);
  });

  it.each([
    ['--campaign: required', ['--name', 'Ada']],
    ['--name: required', ['--campaign', 'CAMPAIGN']],
    ['--campaign: not a valid id (expected a UUID): not-a-uuid', ['--campaign', 'not-a-uuid', '--name', 'Ada']],
    ['--name: too long (256 characters, at most 255)', ['--campaign', 'CAMPAIGN', '--name', 'x'.repeat(256)]],
    ['--email: not an e-mail address: nope', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--email', 'nope']],
    ['--message: too long (256 characters, at most 255)', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--message', 'm'.repeat(256)]],
    // Checked before sending when /me is read anyway (here for --field); else the service's 400 says it.
    ['--locale: fr-FR is not enabled for the account (enabled: en-US, de-DE)', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--locale', 'fr-FR', '--field', 'VIP tier=Gold']],
    ['--field: no custom field with id or label "Team" (the account\'s fields: "Player ID", "VIP tier", "Marketing consent")', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--field', 'Team=Blue']],
    ['--field VIP tier: "VIP tier" must be one of Bronze, Silver, Gold; got Platinum', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--field', 'VIP tier=Platinum']],
    ['--field Marketing consent: "Marketing consent" is a checkbox; use true or false, got maybe', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--field', 'Marketing consent=maybe']],
    ['--field: expected NAME=VALUE, got novalue', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--field', 'novalue']],
    ['--idempotency-key: too long (256 characters, at most 255)', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--idempotency-key', 'k'.repeat(256)]],
    ['--concurrency: only with --from-file', ['--campaign', 'CAMPAIGN', '--name', 'Ada', '--concurrency', '4']],
  ])('exits 2 naming the flag: %s', async (message, args) => {
    const run = await svc(['links', 'create', ...args.map((arg) => (arg === 'CAMPAIGN' ? singleBrand.id : arg))], { env });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(`error: usage_error: ${message}\n`);
    expect(run.stdout).toBe('');
  });

  it('asks for --brand (exit 2, listing the brands) when the campaign has several and there is no TTY', async () => {
    const run = await svc(['links', 'create', '--campaign', multiBrand.id, '--name', 'Ada'], { env });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      `error: usage_error: --brand: required: campaign "Birthday Gifts 2026" has several brands: ${multiBrand.brandIds[0]} (Lucky Star Casino), ${multiBrand.brandIds[1]} (Golden Reels)\n`,
    );
    expect(run.stdout).toBe('');
  });

  it('replays with the same --idempotency-key: same body, stderr says replayed', async () => {
    const args = ['links', 'create', '--campaign', singleBrand.id, '--name', 'Replay Ray', '--idempotency-key', `replay-${Date.now()}`];
    const first = await svc(args, { env });
    const second = await svc(args, { env });
    expect([first.exitCode, second.exitCode]).toEqual([0, 0]);
    expect(second.stdout).toBe(first.stdout);
    expect(first.stderr).toBe('');
    expect(second.stderr).toBe(replayedNote(args.at(-1)!));
  });

  it('refuses a reused key with a different body (exit 1, the code on stderr)', async () => {
    const key = `reused-${Date.now()}`;
    await svc(['links', 'create', '--campaign', singleBrand.id, '--name', 'One', '--idempotency-key', key], { env });
    const run = await svc(['links', 'create', '--campaign', singleBrand.id, '--name', 'Two', '--idempotency-key', key], { env });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(
      'error: idempotency_key_reused: This Idempotency-Key was already used with a different request.\nhint: this --idempotency-key was used for a different link; use a new key\n',
    );
    expect(run.stdout).toBe('');
  });

  it('passes on the service\'s refusals: completed campaign, unknown campaign (exit 1), JSON problem with -o json', async () => {
    const done = await svc(['links', 'create', '--campaign', completed.id, '--name', 'Late', '--brand', multiBrand.brandIds[0]], { env });
    expect(done.exitCode).toBe(1);
    expect(done.stderr).toBe(
      `error: campaign_not_active: Campaign ${completed.id} is not active (not ready yet, ended or past its expiry). (the campaign is not taking links)\nhint: pick an ACTIVE campaign: svc campaigns ls\n`,
    );
    const unknown = await svc(['links', 'create', '--campaign', '00000000-0000-4000-8000-000000000000', '--name', 'Nobody', '-o', 'json'], { env });
    expect(unknown.exitCode).toBe(1);
    expect(JSON.parse(unknown.stderr)).toEqual({
      type: 'https://docs.svc.example/errors/campaign_not_found',
      title: 'Campaign not found',
      status: 422,
      code: 'campaign_not_found',
      detail: 'Campaign 00000000-0000-4000-8000-000000000000 does not exist or is not usable with this key.',
    });
    expect(unknown.stderr).toBe(`${JSON.stringify(JSON.parse(unknown.stderr))}\n`);
    expect(unknown.stdout).toBe('');
  });

  it('exits 4 for a key without PERSONAL_LINKS', async () => {
    const run = await svc(['links', 'create', '--campaign', singleBrand.id, '--name', 'Ada'], { env: sandbox.env('stores') });
    expect(run.exitCode).toBe(4);
    expect(run.stderr).toBe('error: insufficient_scope: This call needs the PERSONAL_LINKS scope, which the key lacks.\n');
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
    const cancelled = jsonLines(first.stdout)[0];
    expect(cancelled).toEqual({ ...cancelled, id, status: 'CANCELLED', cancelledAt: cancelled.updatedAt });
    expect(cancelled.cancelledAt).toMatch(TIMESTAMP);
    const again = await svc(['links', 'cancel', id, '--reason', 'duplicate', '--yes'], { env });
    expect(again.exitCode).toBe(0);
    // The link as the first cancel left it: nothing changed, the first reason and time kept.
    expect(again.stdout).toBe(first.stdout);
  });

  it('replays with --idempotency-key', async () => {
    const id = await newLink();
    const args = ['links', 'cancel', id, '--reason', 'dup', '--idempotency-key', `cancel-${id}`];
    const first = await svc(args, { env });
    const second = await svc(args, { env });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).toBe(replayedNote(`cancel-${id}`));
  });

  it('explains a claimed link in words (exit 1)', async () => {
    const id = await newLink('Claimer');
    expect((await sandbox.admin('POST', `/links/${id}/claim`)).status).toBeLessThan(300);
    const run = await svc(['links', 'cancel', id, '--reason', 'too late'], { env });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe('error: not_cancellable: cannot cancel this link: the player already claimed it (an order was placed) (status CLAIMED)\n');
  });

  it('explains a link created elsewhere in words (exit 1)', async () => {
    const id = await newLink('Not yours');
    const run = await svc(['links', 'cancel', id, '--reason', 'not mine'], { env: sandbox.env('other') });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(
      'error: not_cancellable: cannot cancel this link: it was created by your team or another API key; only the key that created a link can cancel it (status ACTIVE)\n',
    );
  });

  it.each([
    ['usage_error: --reason: required', ['LINK'], 2],
    ['usage_error: --reason: too long (1001 characters, at most 1000)', ['LINK', '--reason', 'r'.repeat(1_001)], 2],
    ['usage_error: ID: not a valid id (expected a UUID): not-a-uuid', ['not-a-uuid', '--reason', 'x'], 2],
    ['not_found: The personal link was not found or is not accessible with this key.', ['00000000-0000-4000-8000-000000000000', '--reason', 'x'], 3],
  ])('refuses: %s', async (message, args, code) => {
    const id = await newLink();
    const run = await svc(['links', 'cancel', ...args.map((arg) => (arg === 'LINK' ? id : arg))], { env });
    expect(run.exitCode).toBe(code);
    expect(run.stderr).toBe(`error: ${message}\n`);
    expect(run.stdout).toBe('');
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
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toBe(
        `error: invalid_request: customFields: The required field "Player ID" (${playerId.id}) is not answered.\n` +
          `  customFields: invalid: The required field "Player ID" (${playerId.id}) is not answered.\n`,
      );
      expect(run.stdout).toBe('');
    } finally {
      await sandbox.admin('PATCH', '/settings', { requiredCustomFieldIds: [] });
    }
  });
});
