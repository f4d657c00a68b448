/**
 * Which requests `links create` sends: a fully specified create is exactly one POST; /me and
 * /campaigns are read only when something must be asked or looked up (a --field, a missing brand,
 * an unanswered required field on a terminal).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { run as createLink, type declare } from '../../src/commands/links/create.js';
import type { Context } from '../../src/app/context.js';
import type { Prompter } from '../../src/core/prompter.js';
import { ApiDouble, doubleEachTest } from '../helpers/double.js';
import { runInProcess } from '../helpers/run.js';
import { tempConfigDir } from '../helpers/svc.js';
import { parseVerb } from '../helpers/parse.js';
import { scriptedPrompter, testContext, type TestTerminal } from '../helpers/terminal.js';

const KEY = 'svc_live_testkey0000000000wxyz';
const CAMPAIGN = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';
const BRAND_A = '6cf764cf-ca59-43c5-b0e6-58c6862c38f0';
const BRAND_B = 'f747e6eb-f1bc-4746-8031-cfb8dbfdcec2';
const TIER = '7f33eb38-2382-46ea-9990-8bc2195e3caa';
const NOTE = '1d2c3b4a-5e6f-4a8b-9c0d-1e2f3a4b5c6d';
const LINK = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

const me = {
  tenant: {
    id: CAMPAIGN,
    locales: ['en-US', 'de-DE'],
    approvalRequired: false,
    customFields: [
      { id: TIER, label: 'Tier', type: 'DROPDOWN', required: true, options: ['Gold', 'Silver'] },
      { id: NOTE, label: 'Note', type: 'TEXT', required: false, options: [] },
    ],
  },
  key: { name: 'full', scopes: ['PERSONAL_LINKS'], webhookUrl: null },
  brands: [
    { id: BRAND_A, name: 'Lucky' },
    { id: BRAND_B, name: 'Golden' },
  ],
  environment: 'production',
};

const link = {
  id: LINK,
  campaignId: CAMPAIGN,
  selection: null,
  brandId: BRAND_A,
  status: 'ACTIVE',
  claimUrl: 'https://gifts.example/claim/x',
  customFields: [
    { fieldId: TIER, textValue: 'Gold', checked: null },
    { fieldId: NOTE, textValue: null, checked: null },
  ],
  expiresAt: null,
  createdAt: '2026-11-24T06:00:00.000000Z',
  approvedAt: null,
  claimedAt: null,
  cancelledAt: null,
  updatedAt: '2026-11-24T06:00:00.000000Z',
};

const campaignPage = (brandIds: string[]) => ({ items: [{ id: CAMPAIGN, name: 'Birthday', status: 'ACTIVE', brandIds, expiresAt: null }], nextCursor: null });

const requiredFieldMissing = {
  status: 400,
  body: {
    type: 'https://docs.svc.example/errors/invalid_request',
    title: 'Invalid request',
    status: 400,
    code: 'invalid_request',
    detail: 'customFields: The required field "Tier" is not answered.',
    errors: [{ field: 'customFields', code: 'invalid', message: 'The required field "Tier" is not answered.' }],
  },
};

let api: ApiDouble;
let env: Record<string, string>;
doubleEachTest((double) => {
  api = double;
  env = { SVC_API_KEY: KEY, SVC_BASE_URL: api.baseUrl, SVC_CONFIG_DIR: tempConfigDir() };
});

const svc = (...argv: string[]) => runInProcess(argv, env);
const sent = () => api.requests.map((request) => `${request.method} ${request.path}`);
const bodyOf = (index: number) => JSON.parse(api.requests[index].body);

describe('links create in a pipe', () => {
  it('with --campaign, --brand and --locale given sends exactly one request: the POST', async () => {
    api.on('POST /personal-links', { status: 201, body: link });
    const result = await svc('links', 'create', '--campaign', CAMPAIGN, '--brand', BRAND_A, '--locale', 'de-DE', '--name', 'Ada Lovelace');
    expect(result).toEqual({ exitCode: 0, stdout: `${JSON.stringify(link)}\n`, stderr: '' });
    expect(sent()).toEqual(['POST /personal-links']);
    expect(bodyOf(0)).toEqual({ campaignId: CAMPAIGN, brandId: BRAND_A, fullName: 'Ada Lovelace', locale: 'de-DE' });
    expect(api.requests[0].headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('with e-mail and message too, still one request', async () => {
    api.on('POST /personal-links', { status: 201, body: link });
    const result = await svc('links', 'create', '--campaign', CAMPAIGN, '--brand', BRAND_A, '--name', 'Ada', '--email', 'ada@example.com', '--message', 'Enjoy');
    expect(result.exitCode).toBe(0);
    expect(sent()).toEqual(['POST /personal-links']);
    expect(bodyOf(0)).toEqual({ campaignId: CAMPAIGN, brandId: BRAND_A, fullName: 'Ada', email: 'ada@example.com', message: 'Enjoy' });
  });

  it('a --field given by label reads /me to resolve it, then posts', async () => {
    api.on('GET /me', { body: me });
    api.on('POST /personal-links', { status: 201, body: link });
    const result = await svc('links', 'create', '--campaign', CAMPAIGN, '--brand', BRAND_A, '--name', 'Ada', '--field', 'tier=gold');
    expect(result.exitCode).toBe(0);
    expect(sent()).toEqual(['GET /me', 'POST /personal-links']);
    expect(bodyOf(1)).toEqual({ campaignId: CAMPAIGN, brandId: BRAND_A, fullName: 'Ada', customFields: [{ fieldId: TIER, textValue: 'Gold' }] });
  });

  it('with /me read anyway, a locale the account has not enabled is refused before the POST (exit 2)', async () => {
    api.on('GET /me', { body: me });
    const result = await svc('links', 'create', '--campaign', CAMPAIGN, '--brand', BRAND_A, '--name', 'Ada', '--locale', 'fr-FR', '--field', 'Tier=Gold');
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: 'error: usage_error: --locale: fr-FR is not enabled for the account (enabled: en-US, de-DE)\n' });
    expect(sent()).toEqual(['GET /me']);
  });

  it('without --brand, the campaign is looked up; one usable brand needs nothing more', async () => {
    api.on('GET /campaigns?limit=100', { body: campaignPage([BRAND_A]) });
    api.on('POST /personal-links', { status: 201, body: link });
    const result = await svc('links', 'create', '--campaign', CAMPAIGN, '--name', 'Ada');
    expect(result.exitCode).toBe(0);
    expect(sent()).toEqual(['GET /campaigns?limit=100', 'POST /personal-links']);
    expect(bodyOf(1)).toEqual({ campaignId: CAMPAIGN, fullName: 'Ada' });
  });

  it('without --brand for a campaign of several brands: exit 2 naming them (brand names from /me), nothing posted', async () => {
    api.on('GET /campaigns?limit=100', { body: campaignPage([BRAND_A, BRAND_B]) });
    api.on('GET /me', { body: me });
    const result = await svc('links', 'create', '--campaign', CAMPAIGN, '--name', 'Ada');
    expect(result).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: `error: usage_error: --brand: required: campaign "Birthday" has several brands: ${BRAND_A} (Lucky), ${BRAND_B} (Golden)\n`,
    });
    expect(sent()).toEqual(['GET /campaigns?limit=100', 'GET /me']);
  });

  it('an unanswered required custom field is the service\'s 400 with errors[] (exit 1), after the one POST', async () => {
    api.on('POST /personal-links', requiredFieldMissing);
    const result = await svc('links', 'create', '--campaign', CAMPAIGN, '--brand', BRAND_A, '--name', 'Ada');
    expect(result).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'error: invalid_request: customFields: The required field "Tier" is not answered.\n  customFields: invalid: The required field "Tier" is not answered.\n',
    });
    expect(sent()).toEqual(['POST /personal-links']);
  });
});

describe('links create on a terminal, every flag given', () => {
  let ctx: Context;
  let terminal: TestTerminal;
  /** The command's Context on a terminal, answering prompts from `prompter`. */
  const answering = (prompter: Prompter) => {
    ({ ctx, terminal } = testContext({ tty: true, options: { output: 'jsonl' }, client: new ApiClient({ baseUrl: api.baseUrl, apiKey: KEY }), prompter }));
  };
  afterEach(() => ctx.close());

  it('asks nothing and sends one request when the service takes it', async () => {
    api.on('POST /personal-links', { status: 201, body: link });
    const prompter = scriptedPrompter([]);
    answering(prompter);
    await createLink(ctx, (await parseVerb<typeof declare>(['links', 'create', '--campaign', CAMPAIGN, '--brand', BRAND_A, '--locale', 'en-US', '--name', 'Ada'])).options);
    expect(prompter.asked).toEqual([]);
    expect(sent()).toEqual(['POST /personal-links']);
    expect(JSON.parse(terminal.stdout)).toEqual(link);
  });

  it('asks for a required field the service says is missing, then sends again with the same Idempotency-Key', async () => {
    api.on('POST /personal-links', requiredFieldMissing, { status: 201, body: link });
    api.on('GET /me', { body: me });
    const prompter = scriptedPrompter([['Tier', 'Silver']]);
    answering(prompter);
    await createLink(ctx, (await parseVerb<typeof declare>(['links', 'create', '--campaign', CAMPAIGN, '--brand', BRAND_A, '--name', 'Ada'])).options);
    expect(prompter.asked).toEqual(['Tier']);
    expect(sent()).toEqual(['POST /personal-links', 'GET /me', 'POST /personal-links']);
    expect(bodyOf(0)).toEqual({ campaignId: CAMPAIGN, brandId: BRAND_A, fullName: 'Ada' });
    expect(bodyOf(2)).toEqual({ campaignId: CAMPAIGN, brandId: BRAND_A, fullName: 'Ada', customFields: [{ fieldId: TIER, textValue: 'Silver' }] });
    expect(api.requests[2].headers['idempotency-key']).toBe(api.requests[0].headers['idempotency-key']);
    expect(JSON.parse(terminal.stdout)).toEqual(link);
  });
});
