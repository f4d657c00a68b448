/**
 * Guided `orders place` at the command layer: when the service refuses an answer (400 naming the
 * field), only that field is asked again; every other answer is kept and the order is placed once,
 * with the corrected body under a new idempotency key. Scripted prompts, undici's MockAgent (an
 * unmatched request fails the test).
 */
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { run } from '../../src/commands/orders/place.js';
import type { Context } from '../../src/app/context.js';
import { ApiError } from '../../src/core/errors.js';
import type { Prompter } from '../../src/core/prompter.js';
import { scriptedPrompter, testContext, type TestTerminal } from '../helpers/terminal.js';

const ORIGIN = 'https://api.example.test';
const STORE = '5b0c2d11-0b7c-4c8e-9a59-3f1f1d8e2f0e';
const BRAND = '6cf764cf-ca59-43c5-b0e6-58c6862c38f0';
const PRODUCT = '9a593f1f-5b0c-4d11-8c8e-0b7c2f0e1d8e';
const json = { 'content-type': 'application/json' };
const problemJson = { 'content-type': 'application/problem+json' };

const me = { tenant: { id: 't', locales: ['en-US'], approvalRequired: false, customFields: [] }, key: { name: 'full', scopes: ['REWARD_STORES'], webhookUrl: null }, brands: [{ id: BRAND, name: 'Lucky' }], environment: 'production' };
const summary = { id: STORE, name: 'Winter Store', brandIds: [BRAND], phase: 'LIVE', startsAt: null, endsAt: null };
const gift = { productId: PRODUCT, name: 'Mug', description: null, thumbnail: null, gallery: [], dimensions: [], combinations: [{ variations: {} }], coinPrice: '500' };
const store = { ...summary, description: null, banner: null, brand: { id: BRAND, name: 'Lucky' }, currency: { name: 'Coins', symbol: 'C' }, country: 'DE', locale: 'en-US', sections: [{ id: 's1', name: 'Home', items: [gift] }] };
const order = { id: 'o1', reference: 'R-1', storeId: STORE, brandId: BRAND, productId: PRODUCT, productName: 'Mug', variations: {}, status: 'PROCESSING', coinPrice: '500', currency: { name: 'Coins', symbol: 'C' }, deliveryCountry: 'DE', customFields: [], shipment: null, createdAt: 'x', updatedAt: 'x' };

let agent: MockAgent;
let ctx: Context;
let terminal: TestTerminal;
const sent: { body: Record<string, unknown>; key: string }[] = [];

/** The command's Context on a terminal, answering prompts from `prompter`. */
function answering(prompter: Prompter): void {
  const client = new ApiClient({ baseUrl: `${ORIGIN}/v1`, apiKey: 'svc_live_test0000000000', dispatcher: agent });
  ({ ctx, terminal } = testContext({ tty: true, options: { output: 'jsonl' }, client, prompter }));
}

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  sent.length = 0;
  const pool = agent.get(ORIGIN);
  pool.intercept({ path: '/v1/me' }).reply(200, me, { headers: json });
  pool.intercept({ path: (path) => path.startsWith('/v1/reward-stores?') }).reply(200, { items: [summary], nextCursor: null }, { headers: json });
  pool.intercept({ path: `/v1/reward-stores/${STORE}?brandId=${BRAND}&country=DE&locale=en-US` }).reply(200, store, { headers: json });
});
afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

function expectOrderPost(status: number, reply: object) {
  agent
    .get(ORIGIN)
    .intercept({ path: '/v1/reward-store-orders', method: 'POST' })
    .reply((request) => {
      const headers = request.headers as Record<string, string>;
      sent.push({ body: JSON.parse(String(request.body)), key: headers['idempotency-key'] });
      return { statusCode: status, data: reply, responseOptions: { headers: status >= 400 ? problemJson : json } };
    });
}

const flags = { store: STORE, brand: BRAND, product: PRODUCT, price: '500', country: 'DE', locale: 'en-US', name: 'Ada Lovelace', street: 'Hauptstr. 1', city: 'Berlin', yes: true as const };

describe('orders place, guided: a refused answer is asked again', () => {
  it('asks only for the refused phone and postal code, keeps the rest, places once more with a new key', async () => {
    expectOrderPost(400, {
      status: 400,
      code: 'invalid_request',
      detail: 'the request is not valid',
      errors: [
        { field: 'recipient.phone', code: 'invalid', message: 'not a phone number that can be reached' },
        { field: 'recipient.address.postalCode', code: 'required', message: 'DE uses postal codes' },
      ],
    });
    expectOrderPost(201, order);
    const prompter = scriptedPrompter([
      ['Phone', '+4915100000000'],
      ['Postal code (leave empty', ''],
      ['E-mail', 'ada@example.com'],
      ['Phone', '+4915112345678'],
      ['Postal code (DE uses them)', '10115'],
    ]);
    answering(prompter);
    await run(ctx, { ...flags, variation: [], field: [] });

    expect(prompter.asked).toEqual([
      'Phone (E.164, e.g. +4915112345678)',
      'Postal code (leave empty if DE has none)',
      'E-mail for status updates (optional)',
      'Phone (E.164, e.g. +4915112345678)',
      'Postal code (DE uses them)',
    ]);
    const first = {
      storeId: STORE,
      brandId: BRAND,
      productId: PRODUCT,
      variations: {},
      coinPrice: '500',
      locale: 'en-US',
      recipient: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+4915100000000', address: { street: 'Hauptstr. 1', city: 'Berlin', country: 'DE' } },
    };
    expect(sent.map((request) => request.body)).toEqual([
      first,
      { ...first, recipient: { ...first.recipient, phone: '+4915112345678', address: { ...first.recipient.address, postalCode: '10115' } } },
    ]);
    expect(sent[0].key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[0].key).not.toBe(sent[1].key);
    expect(JSON.parse(terminal.stdout)).toEqual(order);
    expect(terminal.stderr.split('\n').slice(0, 2)).toEqual([
      'The service refused recipient.phone: not a phone number that can be reached',
      'The service refused recipient.address.postalCode: DE uses postal codes',
    ]);
  });

  it('a --country where the gift is not sold is asked again with the reason on a terminal, not the end of the flow', async () => {
    agent.get(ORIGIN).intercept({ path: `/v1/reward-stores/${STORE}?brandId=${BRAND}&country=AT&locale=en-US` }).reply(200, { ...store, country: 'AT', sections: [] }, { headers: json });
    expectOrderPost(201, order);
    const prompter = scriptedPrompter([
      ['Delivery country', 'DE'],
      ['Phone', '+4915112345678'],
      ['Postal code (leave empty', '10115'],
      ['E-mail', ''],
    ]);
    answering(prompter);
    await run(ctx, { ...flags, country: 'AT', variation: [], field: [] });

    expect(prompter.asked[0]).toBe('Delivery country (two letters, e.g. DE)');
    expect(terminal.stderr.split('\n')[0]).toBe('This gift is not sold in AT: choose another delivery country.');
    expect(sent.map((request) => (request.body.recipient as { address: { country: string } }).address.country)).toEqual(['DE']);
    expect(JSON.parse(terminal.stdout)).toEqual(order);
  });

  it('a refusal naming a field the walk does not ask is reported as before, nothing asked again', async () => {
    expectOrderPost(400, { status: 400, code: 'invalid_request', detail: 'the request is not valid', errors: [{ field: 'customFields', code: 'invalid', message: 'a required field is missing' }] });
    const prompter = scriptedPrompter([
      ['Phone', '+4915112345678'],
      ['Postal code', '10115'],
      ['E-mail', ''],
    ]);
    answering(prompter);
    const failure = await run(ctx, { ...flags, variation: [], field: [] }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).fieldErrors).toEqual([{ field: 'customFields', code: 'invalid', message: 'a required field is missing' }]);
    expect(prompter.asked).toHaveLength(3);
    expect(sent).toHaveLength(1);
  });
});
