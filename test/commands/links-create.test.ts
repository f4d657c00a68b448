/**
 * The guided `links create` at the command layer: scripted prompt answers instead of a terminal,
 * undici's MockAgent instead of the network (an unmatched request fails the test).
 */
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { ApiClient } from '../../src/api/client.js';
import { run, type declare } from '../../src/commands/links/create.js';
import { Context } from '../../src/app/context.js';
import type { IOStreams } from '../../src/core/io.js';
import type { Choice, Prompter } from '../../src/core/prompter.js';
import { parseVerb } from '../helpers/parse.js';

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

/** Answers prompts in order; each step names the prompt it expects, so a changed flow fails loudly. */
function scripted(steps: [string, unknown][]): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const next = (message: string, choices?: Choice<unknown>[]) => {
    asked.push(message);
    const step = steps.shift();
    if (!step || !message.includes(step[0])) throw new Error(`unexpected prompt: ${message}`);
    if (choices) {
      const choice = choices.find((c) => c.name.includes(String(step[1])));
      if (!choice) throw new Error(`no choice ${String(step[1])} in ${choices.map((c) => c.name).join(', ')}`);
      return choice.value;
    }
    return step[1];
  };
  return {
    asked,
    input: async (message) => next(message) as string,
    password: async (message) => next(message) as string,
    confirm: async (message) => next(message) as boolean,
    select: async (message, choices) => next(message, choices as Choice<unknown>[]) as never,
    search: async (message, choices) => next(message, choices as Choice<unknown>[]) as never,
  };
}

let agent: MockAgent;
let stdout: string;
let stderr: string;
let ctx: Context;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  stdout = '';
  stderr = '';
  const terminal = (sink?: (text: string) => void) => {
    const stream = new PassThrough() as PassThrough & { isTTY: boolean };
    stream.isTTY = true;
    if (sink) stream.on('data', (chunk) => sink(String(chunk)));
    return stream;
  };
  const streams = { stdin: terminal(), stdout: terminal((text) => (stdout += text)), stderr: terminal((text) => (stderr += text)), env: { NO_COLOR: '1' } } as unknown as IOStreams;
  ctx = new Context({ output: 'jsonl' }, streams, new AbortController().signal);
  ctx.setClient(new ApiClient({ baseUrl: `${ORIGIN}/v1`, apiKey: 'svc_live_test0000000000', dispatcher: agent }));
});
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

    const prompter = scripted([
      ['Campaign', 'Birthday'],
      ['Brand', 'Golden'],
      ['full name', 'Ada Lovelace'],
      ['E-mail', ''],
      ['Message', ''],
      ['Language', 'de-DE'],
      ['Tier', 'Silver'],
      ['Create this link?', true],
    ]);
    ctx.setPrompter(prompter);
    await run(ctx, { field: [] });

    expect(sent).toEqual({ campaignId: CAMPAIGN, brandId: BRAND_B, fullName: 'Ada Lovelace', locale: 'de-DE', customFields: [{ fieldId: FIELD, textValue: 'Silver' }] });
    expect(stdout).toBe('{"id":"new-link","claimUrl":"https://gifts.example/claim/x","status":"ACTIVE"}\n');
    // One confirmation, by name: campaign, brand and field label, not their ids alone.
    expect(stderr).toBe(
      [`Campaign:  Birthday (${CAMPAIGN})`, `Brand:     Golden (${BRAND_B})`, 'Player:    Ada Lovelace', 'Language:  de-DE', 'Tier:      Silver', ''].join('\n'),
    );
  });

  it('a declined confirmation creates nothing', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/me' }).reply(200, me, { headers: json });
    pool
      .intercept({ path: (path) => path.startsWith('/v1/campaigns') })
      .reply(200, { items: [{ id: CAMPAIGN, name: 'Birthday', status: 'ACTIVE', brandIds: [BRAND_A], expiresAt: null }], nextCursor: null }, { headers: json });
    ctx.setPrompter(scripted([['Campaign', 'Birthday'], ['full name', 'Ada'], ['E-mail', ''], ['Message', ''], ['Language', 'en-US'], ['Tier', 'Gold'], ['Create this link?', false]]));
    await expect(run(ctx, { field: [] })).rejects.toThrow('link not created: you declined');
    expect(stdout).toBe('');
  });

  it('with every flag given, asks nothing and sends the labels resolved to field ids', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/me' }).reply(200, me, { headers: json });
    let sent: Record<string, unknown> | undefined;
    pool
      .intercept({ path: '/v1/personal-links', method: 'POST', body: (body) => Boolean((sent = JSON.parse(body))) })
      .reply(201, { id: 'l2' }, { headers: json });
    const prompter = scripted([]);
    ctx.setPrompter(prompter);
    const { options } = await parseVerb<typeof declare>(['links', 'create', '--campaign', CAMPAIGN, '--brand', BRAND_A, '--name', 'Bob', '--field', 'tier=Gold']);
    await run(ctx, options);
    expect(prompter.asked).toEqual([]);
    expect(sent).toEqual({ campaignId: CAMPAIGN, brandId: BRAND_A, fullName: 'Bob', customFields: [{ fieldId: FIELD, textValue: 'Gold' }] });
  });
});
