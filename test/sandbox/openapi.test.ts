import { validate as validateOpenApi } from '@readme/openapi-parser';
import { createRequire } from 'node:module';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import * as responseValidators from '../../src/api/generated/response-validators.js';
import { responseProblems } from '../../src/sandbox/routes/openapi.js';
import { type Reply, type TestSandbox, startSandbox } from './helpers.js';

/*
 * The API description (openapi/openapi.yaml) as the sandbox serves it: a valid OpenAPI 3.1 document
 * that states the spec's operations, limits and enums, and that the sandbox's answers conform to.
 * Answers are checked here with a validator compiled from the served document at test time, apart
 * from the validators the build generates (which test/sandbox/helpers.ts runs on every call).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is read as plain JSON
type Doc = any;

// The standard validator, loaded as the CommonJS modules they are.
const require = createRequire(import.meta.url);
const { Ajv2020 } = require('ajv/dist/2020') as typeof import('ajv/dist/2020.js');
const addFormats = (require('ajv-formats') as { default: (ajv: InstanceType<typeof Ajv2020>) => unknown }).default;

const open: TestSandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((sb) => sb.close()));
});
async function fresh(options: Parameters<typeof startSandbox>[0] = {}): Promise<TestSandbox> {
  const sb = await startSandbox(options);
  open.push(sb);
  return sb;
}

let doc: Doc;
beforeAll(async () => {
  const sb = await startSandbox();
  try {
    const res = await fetch(`${sb.info.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    doc = await res.json();
  } finally {
    await sb.close();
  }
});

const deref = (node: Doc): Doc => (node?.$ref ? deref(node.$ref.slice(2).split('/').reduce((n: Doc, p: string) => n[p], doc)) : node);
const schema = (name: string): Doc => doc.components.schemas[name];

describe('the served document', () => {
  test('is served without a key and validates as OpenAPI 3.1 with a standard parser', async () => {
    const result = await validateOpenApi(structuredClone(doc));
    expect(result).toEqual({ valid: true, warnings: [], specification: 'OpenAPI' });
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('v1');
    // The sandbox serving it first, then production.
    expect(doc.servers).toHaveLength(2);
    expect(doc.servers[1].url).toMatch(/^https:\/\/.*\/v1$/);
    expect(doc.servers[1]['x-environment']).toBe('production');
    expect(doc.servers[1].description).toMatch(/^Production/);
  });

  test('the parser refuses a broken document (a dangling $ref)', async () => {
    const broken = structuredClone(doc);
    broken.paths['/me'].get.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/Nope' };
    const result = await validateOpenApi(broken);
    expect(result.valid).toBe(false);
    expect(JSON.stringify(result)).toContain('Missing $ref pointer \\"#/components/schemas/Nope\\"');
  });

  test('has the 13 operations of the spec', () => {
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, Doc>).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(ops.sort()).toEqual(
      [
        'GET /me getMe',
        'GET /campaigns listCampaigns',
        'GET /personal-links listPersonalLinks',
        'POST /personal-links createPersonalLink',
        'GET /personal-links/{linkId} getPersonalLink',
        'POST /personal-links/{linkId}:cancel cancelPersonalLink',
        'GET /reward-stores listRewardStores',
        'GET /reward-stores/{storeId} getRewardStore',
        'POST /reward-store-orders placeRewardStoreOrder',
        'GET /reward-store-orders listRewardStoreOrders',
        'GET /reward-store-orders/{orderId} getRewardStoreOrder',
        'GET /events listEvents',
        'POST /webhooks:test testWebhook',
      ].sort(),
    );
  });

  test('bearer auth on every operation; every error answer is problem+json with the one ProblemDetail', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.bearerAuth.description).toContain('svc_live_');
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const item of Object.values(doc.paths) as Doc[]) {
      for (const op of Object.values(item) as Doc[]) {
        expect(op.security, op.operationId).toBeUndefined();
        const statuses = Object.keys(op.responses);
        for (const status of ['401', '406', '429', '500']) expect(statuses, op.operationId).toContain(status);
        for (const [status, response] of Object.entries(op.responses)) {
          const content = deref(response).content;
          if (Number(status) >= 400) {
            expect(Object.keys(content), `${op.operationId} ${status}`).toEqual(['application/problem+json']);
            expect(content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/ProblemDetail' });
          } else {
            expect(Object.keys(content), `${op.operationId} ${status}`).toEqual(['application/json']);
          }
        }
      }
    }
    expect(deref(doc.paths['/campaigns'].get.responses['429']).headers['Retry-After']).toBeDefined();
    const problem = schema('ProblemDetail');
    expect(problem.required).toEqual(['type', 'title', 'status', 'code']);
    expect(Object.keys(problem.properties)).toEqual(['type', 'title', 'status', 'code', 'detail', 'errors', 'coinPrice', 'currentStatus', 'reason']);
    expect(deref(problem.properties.errors.items).required).toEqual(['field', 'code', 'message']);
  });

  test('headers: Idempotency-Key up to 255, required on the creating POSTs, optional on cancel; Idempotent-Replayed', () => {
    const header = (op: Doc) => (op.parameters ?? []).map(deref).find((p: Doc) => p.name === 'Idempotency-Key');
    expect(header(doc.paths['/personal-links'].post)).toMatchObject({ in: 'header', required: true });
    expect(header(doc.paths['/reward-store-orders'].post)).toMatchObject({ in: 'header', required: true });
    expect(header(doc.paths['/personal-links/{linkId}:cancel'].post)).toMatchObject({ in: 'header', required: false });
    expect(header(doc.paths['/webhooks:test'].post)).toBeUndefined();
    expect(deref(header(doc.paths['/personal-links'].post).schema).maxLength).toBe(255);
    expect(doc.paths['/personal-links'].post.responses['201'].headers['Idempotent-Replayed']).toBeDefined();
  });

  test('the enums of the spec', () => {
    const values = (name: string) => deref(schema(name)).enum;
    expect(values('LinkStatus')).toEqual(['REQUESTED', 'ACTIVE', 'CLAIMED', 'EXPIRED', 'CANCELLED']);
    expect(values('OrderStatus')).toEqual(['REQUESTED', 'PROCESSING', 'SENT', 'COMPLETED', 'CANCELLED']);
    expect(values('CampaignStatus')).toEqual(['ACTIVE', 'COMPLETED']);
    expect(values('StorePhase')).toEqual(['SCHEDULED', 'LIVE']);
    expect(values('Scope')).toEqual(['PERSONAL_LINKS', 'REWARD_STORES']);
    expect(values('FieldType')).toEqual(['TEXT', 'CHECKBOX', 'DROPDOWN']);
    expect(values('LinkSelection')).toEqual(['CATALOG', null]);
    expect(values('Environment')).toEqual(['production']);
    expect(values('FieldErrorCode')).toEqual(['required', 'invalid', 'too_long', 'not_enabled']);
    expect(values('NotCancellableReason')).toEqual(['created_elsewhere']);
    expect(values('GiftNotAvailableReason')).toEqual([
      'NOT_IN_STORE', 'NOT_PUBLISHED', 'NOT_USABLE_BY_BRAND', 'NOT_SOLD_IN_COUNTRY', 'NOT_AVAILABLE_NOW', 'NO_SELECTABLE_COMBINATION',
    ]);
    expect(values('EventType')).toEqual([
      'personal_link.created', 'personal_link.approved', 'personal_link.claimed', 'personal_link.cancelled', 'personal_link.expired',
      'order.approved', 'order.cancelled', 'order.sent', 'order.completed', 'ping',
    ]);
    // The codes of this revision; ErrorCode itself is open (any string), see fidelity.test.ts.
    expect(values('KnownErrorCode')).toEqual(expect.arrayContaining([
      'invalid_request', 'idempotency_key_required', 'idempotency_key_invalid', 'invalid_api_key', 'insufficient_scope', 'not_found',
      'idempotency_request_in_progress', 'not_cancellable', 'out_of_stock', 'price_changed', 'idempotency_key_reused',
      'campaign_not_found', 'campaign_not_active', 'reward_store_not_found', 'reward_store_not_live', 'brand_not_found',
      'gift_not_available', 'rate_limited',
    ]));
    expect(values('CountryCode')).toHaveLength(249);
    // The status filters take the resource's statuses (openapi/openapi.yaml).
    const filter = (path: string) => doc.paths[path].get.parameters.map(deref).find((p: Doc) => p.name === 'status').schema;
    expect(filter('/personal-links')).toEqual({ $ref: '#/components/schemas/LinkStatus' });
    expect(filter('/reward-store-orders')).toEqual({ $ref: '#/components/schemas/OrderStatus' });
    expect(filter('/campaigns')).toEqual({ $ref: '#/components/schemas/CampaignStatus', default: 'ACTIVE' });
  });

  test('the limits of the spec', () => {
    const member = (name: string, ...path: string[]) => path.reduce((s: Doc, p) => deref(deref(s).properties[p]), schema(name));
    expect(member('CreatePersonalLinkRequest', 'fullName').maxLength).toBe(255);
    expect(member('CreatePersonalLinkRequest', 'email').maxLength).toBe(255);
    expect(member('CreatePersonalLinkRequest', 'message').maxLength).toBe(255);
    expect(schema('CreatePersonalLinkRequest').required).toEqual(['campaignId', 'fullName']);
    expect(member('CancelPersonalLinkRequest', 'reason').maxLength).toBe(1000);
    expect(member('CustomFieldAnswerInput', 'textValue').maxLength).toBe(1000);
    expect(member('PlaceRewardStoreOrderRequest', 'recipient', 'name').maxLength).toBe(100);
    expect(member('PlaceRewardStoreOrderRequest', 'recipient', 'email').maxLength).toBe(255);
    expect(member('PlaceRewardStoreOrderRequest', 'recipient', 'phone').pattern).toBe('^\\+[1-9]\\d{1,14}$');
    expect(member('PlaceRewardStoreOrderRequest', 'recipient', 'address', 'street').maxLength).toBe(255);
    expect(member('PlaceRewardStoreOrderRequest', 'recipient', 'address', 'city').maxLength).toBe(100);
    expect(member('PlaceRewardStoreOrderRequest', 'recipient', 'address', 'postalCode').maxLength).toBe(20);
    expect(member('PlaceRewardStoreOrderRequest', 'additionalDetails').maxLength).toBe(2000);
    expect(schema('PlaceRewardStoreOrderRequest').required).toEqual(['storeId', 'brandId', 'productId', 'coinPrice', 'recipient']);
    expect(deref(doc.components.parameters.Limit).schema).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
    expect(deref(schema('DateTime')).pattern).toBe('^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$');
    // Nullability as 3.1 type arrays: always present, may be null.
    expect(schema('PersonalLink').required).toHaveLength(13);
    expect(member('StoreGift', 'description').type).toEqual(['string', 'null']);
    expect(member('WebhookTestResult', 'responseStatus').type).toEqual(['integer', 'null']);
    expect(deref(schema('Me')).required).toEqual(['tenant', 'key', 'brands', 'environment']);
  });
});

describe('sandbox answers conform to the served document', () => {
  test('about twenty kinds of answers: lists, records and every error class', async () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    ajv.addSchema({ ...doc, $id: 'doc' }, 'doc');
    const seen: string[] = [];
    /** Validates `reply` against what the document says of `operationId` and its status. */
    const conforms = (reply: Reply, operationId: string, status: number): void => {
      expect(reply.status, `${operationId} ${reply.text}`).toBe(status);
      const op = Object.values(doc.paths).flatMap((item) => Object.values(item as Doc)).find((o: Doc) => o.operationId === operationId) as Doc;
      const content = deref(op.responses[String(status)]).content;
      const [mediaType] = Object.keys(content);
      expect(reply.headers.get('content-type')).toBe(mediaType);
      const check = ajv.getSchema(`doc${content[mediaType].schema.$ref}`)!;
      const valid = check(reply.body);
      expect(valid ? [] : check.errors, `${operationId} ${status}`).toEqual([]);
      if (status >= 400) expect(reply.body.status).toBe(status);
      seen.push(`${operationId} ${status}${reply.body?.code ? ` ${reply.body.code}` : ''}`);
    };

    const sb = await fresh({ rateLimitPerMinute: 1000 });
    // Records and lists.
    conforms(await sb.api('GET', '/me'), 'getMe', 200);
    const campaigns = await sb.api('GET', '/campaigns');
    conforms(campaigns, 'listCampaigns', 200);
    conforms(await sb.api('GET', '/campaigns?status=COMPLETED'), 'listCampaigns', 200);
    const campaign = campaigns.body.items.find((c: { brandIds: string[] }) => c.brandIds.length === 1);
    const created = await sb.api('POST', '/personal-links', {
      body: { campaignId: campaign.id, fullName: 'Pat Doe', email: 'pat@example.com', locale: 'de-DE' },
      idempotencyKey: 'oa-1',
    });
    conforms(created, 'createPersonalLink', 201);
    conforms(await sb.api('GET', '/personal-links?limit=2'), 'listPersonalLinks', 200);
    conforms(await sb.api('GET', `/personal-links/${created.body.id}`), 'getPersonalLink', 200);
    conforms(await sb.api('POST', `/personal-links/${created.body.id}:cancel`, { body: { reason: 'test' } }), 'cancelPersonalLink', 200);
    const stores = await sb.api('GET', '/reward-stores');
    conforms(stores, 'listRewardStores', 200);
    const live = stores.body.items.find((s: { phase: string }) => s.phase === 'LIVE');
    const store = await sb.api('GET', `/reward-stores/${live.id}?brandId=${live.brandIds[0]}&country=DE&locale=de-DE`);
    conforms(store, 'getRewardStore', 200);
    const gift = store.body.sections.flatMap((s: { items: Doc[] }) => s.items).find((g: Doc) => g.dimensions.length === 0);
    const order = {
      storeId: live.id,
      brandId: live.brandIds[0],
      productId: gift.productId,
      variations: {},
      coinPrice: gift.coinPrice,
      recipient: { name: 'R', phone: '+4915112345678', address: { street: 'S 1', city: 'Berlin', postalCode: '10115', country: 'DE' } },
    };
    const placed = await sb.api('POST', '/reward-store-orders', { body: order, idempotencyKey: 'oa-2' });
    conforms(placed, 'placeRewardStoreOrder', 201);
    conforms(await sb.api('GET', '/reward-store-orders'), 'listRewardStoreOrders', 200);
    conforms(await sb.api('GET', `/reward-store-orders/${placed.body.id}`), 'getRewardStoreOrder', 200);
    conforms(await sb.api('GET', '/events?limit=100'), 'listEvents', 200);
    conforms(await sb.api('POST', '/webhooks:test'), 'testWebhook', 200);

    // Every error class.
    const bad400 = await sb.api('POST', '/reward-store-orders', {
      body: { ...order, recipient: { name: 'x'.repeat(101), phone: '015112345678', address: { street: ' ', country: 'DE', postalCode: '10115' } }, customFields: [{ fieldId: 'nope' }] },
      idempotencyKey: 'oa-3',
    });
    conforms(bad400, 'placeRewardStoreOrder', 400);
    expect(bad400.body.errors).toEqual([
      { field: 'recipient.name', code: 'too_long', message: 'recipient.name must be at most 100 characters.' },
      { field: 'recipient.phone', code: 'invalid', message: 'recipient.phone must be an E.164 number such as +4915112345678.' },
      { field: 'recipient.address.city', code: 'required', message: 'recipient.address.city is required.' },
      { field: 'recipient.address.street', code: 'required', message: 'recipient.address.street is required.' },
      { field: 'customFields[0].fieldId', code: 'invalid', message: 'customFields[0].fieldId must be a UUID.' },
    ]);
    conforms(await sb.api('GET', '/personal-links?limit=0&status=OPEN'), 'listPersonalLinks', 400);
    conforms(await sb.api('POST', '/personal-links', { body: { campaignId: campaign.id, fullName: 'P' } }), 'createPersonalLink', 400);
    conforms(await sb.api('GET', '/me', { key: 'svc_live_unknown' }), 'getMe', 401);
    conforms(await sb.api('GET', '/reward-stores', { as: 'links' }), 'listRewardStores', 403);
    conforms(await sb.api('GET', '/personal-links/not-a-uuid'), 'getPersonalLink', 404);
    conforms(await sb.api('GET', '/me', { headers: { Accept: 'text/html' } }), 'getMe', 406);
    const claimed = await sb.api('POST', '/personal-links', { body: { campaignId: campaign.id, fullName: 'Q' }, idempotencyKey: 'oa-4' });
    expect((await sb.admin('POST', `/links/${claimed.body.id}/claim`)).status).toBe(200);
    const notCancellable = await sb.api('POST', `/personal-links/${claimed.body.id}:cancel`, { body: { reason: 'x' } });
    conforms(notCancellable, 'cancelPersonalLink', 409);
    expect(notCancellable.body).toMatchObject({ code: 'not_cancellable', currentStatus: 'CLAIMED' });
    const priceChanged = await sb.api('POST', '/reward-store-orders', { body: { ...order, coinPrice: '1' }, idempotencyKey: 'oa-5' });
    conforms(priceChanged, 'placeRewardStoreOrder', 409);
    expect(priceChanged.body).toMatchObject({ code: 'price_changed', coinPrice: gift.coinPrice });
    conforms(
      await sb.api('POST', '/personal-links', { rawBody: 'x'.repeat(10 * 1024 * 1024 + 1), headers: { 'Content-Type': 'application/json' }, idempotencyKey: 'oa-6' }),
      'createPersonalLink',
      413,
    );
    conforms(await sb.api('POST', '/personal-links', { rawBody: 'a=b', headers: { 'Content-Type': 'text/plain' }, idempotencyKey: 'oa-7' }), 'createPersonalLink', 415);
    const reused = await sb.api('POST', '/reward-store-orders', { body: { ...order, variations: { x: 'y' } }, idempotencyKey: 'oa-2' });
    conforms(reused, 'placeRewardStoreOrder', 422);
    const unavailable = await sb.api('POST', '/reward-store-orders', { body: { ...order, productId: '00000000-0000-4000-8000-000000000000' }, idempotencyKey: 'oa-8' });
    conforms(unavailable, 'placeRewardStoreOrder', 422);
    expect(unavailable.body).toMatchObject({ code: 'gift_not_available', reason: 'NOT_IN_STORE' });
    conforms(await sb.api('POST', '/personal-links', { body: { campaignId: '00000000-0000-4000-8000-000000000000', fullName: 'P' }, idempotencyKey: 'oa-9' }), 'createPersonalLink', 422);
    // 405 has no operation: the shared problem document.
    const notAllowed = await sb.api('DELETE', '/me');
    expect(notAllowed.status).toBe(405);
    expect(ajv.getSchema('doc#/components/schemas/ProblemDetail')!(notAllowed.body)).toBe(true);
    expect(notAllowed.headers.get('content-type')).toBe('application/problem+json');
    seen.push('405');
    // 429 last: it spends the key's minute.
    expect((await sb.admin('PATCH', '/settings', { rateLimitPerMinute: 1 })).status).toBe(200);
    let limited: Reply | undefined;
    for (let i = 0; i < 3 && limited === undefined; i++) {
      const reply = await sb.api('GET', '/me', { as: 'other' });
      if (reply.status === 429) limited = reply;
    }
    conforms(limited!, 'getMe', 429);
    expect(limited!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(seen.length).toBeGreaterThanOrEqual(30);
    expect(sb.sandbox.responseViolations).toEqual([]);
  });

  test('the response check reports an answer that disagrees with the document', () => {
    const link = { id: '00000000-0000-4000-8000-000000000001', status: 'ACTIVE', fullName: 'Pat' };
    expect(responseProblems(responseValidators, 'GET', `/personal-links/${link.id}`, 200, { 'content-type': 'application/json' }, JSON.stringify(link))).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^GET \/personal-links\/\S+ → 200: \(body\) must have required property 'campaignId'/),
        expect.stringMatching(/^GET \/personal-links\/\S+ → 200: \(body\) must NOT have additional properties \{"additionalProperty":"fullName"\}/),
      ]),
    );
    expect(responseProblems(responseValidators, 'GET', '/me', 418, { 'content-type': 'application/json' }, '{}')).toEqual(['GET /me → 418: status 418 is not documented for getMe']);
    expect(responseProblems(responseValidators, 'GET', '/me', 429, { 'content-type': 'application/problem+json' }, JSON.stringify({ type: 'https://x.example/e', title: 't', status: 429, code: 'rate_limited' }))).toEqual([
      'GET /me → 429: no Retry-After header',
    ]);
    expect(responseProblems(responseValidators, 'GET', '/nowhere', 404, { 'content-type': 'application/json' }, JSON.stringify({ type: 'https://x.example/e', title: 't', status: 404, code: 'not_found' }))).toEqual([
      'GET /nowhere → 404: Content-Type application/json, the document says application/problem+json',
    ]);
  });
});
