/**
 * The guided `links create` at the command layer: scripted prompt answers instead of a terminal,
 * undici's MockAgent instead of the network (an unmatched request fails the test).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { ApiClient } from '../../src/api/client.js';
import { run, type declare } from '../../src/commands/links/create.js';
import type { Context } from '../../src/app/context.js';
import type { Prompter } from '../../src/core/prompter.js';
import { parseVerb } from '../helpers/parse.js';
import { scriptedPrompter, testContext, type TestTerminal } from '../helpers/terminal.js';

const ORIGIN = 'https://api.example.test';
const CAMPAIGN = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';
const BRAND_A = '6cf764cf-ca59-43c5-b0e6-58c6862c38f0';
const BRAND_B = 'f747e6eb-f1bc-4746-8031-cfb8dbfdcec2';
const FIELD = '7f33eb38-2382-46ea-9990-8bc2195e3caa';
const json = { 'content-type': 'application/json' };

const me = {
  tenant: { id: CAMPAIGN, locales: ['en-US', 'de-DE'], approvalRequired: false, customFields: [{ id: FIELD, label: 'Tier', type: 'DROPDOWN', required: true, options: ['Gold', 'Silver'] }] },
  key: { name: 'full', scopes: ['PERSONAL_LINKS'], webhookUrl: null },
  brands: [
    { id: BRAND_A, name: 'Lucky' },
    { id: BRAND_B, name: 'Golden' },
  ],
  environment: 'production',
};

let agent: MockAgent;
let ctx: Context;
let terminal: TestTerminal;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});
/** The command's Context on a terminal, answering prompts from `prompter`. */
function answering(prompter: Prompter): void {
  const client = new ApiClient({ baseUrl: `${ORIGIN}/v1`, apiKey: 'svc_live_test0000000000', dispatcher: agent });
  ({ ctx, terminal } = testContext({ tty: true, options: { output: 'jsonl' }, client, prompter }));
}
afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

describe('links create, guided', () => {
  it('asks for the campaign, brand, name, optional fields and the required custom field, then creates once', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/me' }).reply(200, me, { headers: json });
    pool
      .intercept({ path: (path) => path.startsWith('/v1/campaigns') })
      .reply(200, { items: [{ id: CAMPAIGN, name: 'Birthday', status: 'ACTIVE', brandIds: [BRAND_A, BRAND_B], expiresAt: null }], nextCursor: null }, { headers: json });
    let sent: Record<string, unknown> | undefined;
    pool
      .intercept({
        path: '/v1/personal-links',
        method: 'POST',
        body: (body) => {
          sent = JSON.parse(body);
          return true;
        },
      })
      .reply(201, { id: 'new-link', claimUrl: 'https://gifts.example/claim/x', status: 'ACTIVE' }, { headers: json });

    const prompter = scriptedPrompter([
      ['Campaign', 'Birthday'],
      ['Brand', 'Golden'],
      ['full name', 'Ada Lovelace'],
      ['E-mail', ''],
      ['Message', ''],
      ['Language', 'de-DE'],
      ['Tier', 'Silver'],
      ['Create this link?', true],
    ]);
    answering(prompter);
    await run(ctx, { field: [] });

    expect(sent).toEqual({ campaignId: CAMPAIGN, brandId: BRAND_B, fullName: 'Ada Lovelace', locale: 'de-DE', customFields: [{ fieldId: FIELD, textValue: 'Silver' }] });
    expect(terminal.stdout).toBe('{"id":"new-link","claimUrl":"https://gifts.example/claim/x","status":"ACTIVE"}\n');
    // One confirmation, by name: campaign, brand and field label, not their ids alone.
    expect(terminal.stderr).toBe(
      [`Campaign:  Birthday (${CAMPAIGN})`, `Brand:     Golden (${BRAND_B})`, 'Player:    Ada Lovelace', 'Language:  de-DE', 'Tier:      Silver', ''].join('\n'),
    );
  });

  it('a declined confirmation creates nothing', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/me' }).reply(200, me, { headers: json });
    pool
      .intercept({ path: (path) => path.startsWith('/v1/campaigns') })
      .reply(200, { items: [{ id: CAMPAIGN, name: 'Birthday', status: 'ACTIVE', brandIds: [BRAND_A], expiresAt: null }], nextCursor: null }, { headers: json });
    answering(scriptedPrompter([['Campaign', 'Birthday'], ['full name', 'Ada'], ['E-mail', ''], ['Message', ''], ['Language', 'en-US'], ['Tier', 'Gold'], ['Create this link?', false]]));
    // Declining is the person's answer, not a failure: exit 0, one line (main prints the message alone).
    await expect(run(ctx, { field: [] })).rejects.toMatchObject({ exitCode: 0, code: 'declined', message: 'Link not created (you declined); nothing was sent.' });
    expect(terminal.stdout).toBe('');
  });

  it('with every flag given, asks nothing and sends the labels resolved to field ids', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/me' }).reply(200, me, { headers: json });
    let sent: Record<string, unknown> | undefined;
    pool
      .intercept({ path: '/v1/personal-links', method: 'POST', body: (body) => Boolean((sent = JSON.parse(body))) })
      .reply(201, { id: 'l2' }, { headers: json });
    const prompter = scriptedPrompter([]);
    answering(prompter);
    const { options } = await parseVerb<typeof declare>(['links', 'create', '--campaign', CAMPAIGN, '--brand', BRAND_A, '--name', 'Bob', '--field', 'tier=Gold']);
    await run(ctx, options);
    expect(prompter.asked).toEqual([]);
    expect(sent).toEqual({ campaignId: CAMPAIGN, brandId: BRAND_A, fullName: 'Bob', customFields: [{ fieldId: FIELD, textValue: 'Gold' }] });
  });
});
