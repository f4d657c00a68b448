import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { acceptsJson } from '../../src/sandbox/http.js';
import { requestProblems } from '../../src/sandbox/routes/openapi.js';
import { type TestSandbox, startSandbox } from './helpers.js';

/*
 * What third-party tools (a validating proxy, a generated client) found the sandbox and its
 * description disagreeing on: the body of POST /webhooks:test, Accept headers that
 * exclude JSON, the open error code, Decimal's example, and the sandbox in `servers`.
 */

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb.close();
});

describe('POST /webhooks:test has no request body', () => {
  test('the sandbox answers a call without a body (no Content-Type) 200', async () => {
    const reply = await sb.api('POST', '/webhooks:test');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ responseStatus: null, error: expect.any(String) });
  });

  test('a body sent to it disagrees with the description (a validating proxy refuses it)', () => {
    expect(requestProblems('POST', '/webhooks:test', { 'content-type': 'application/json', 'content-length': '2' })).toEqual([
      'POST /webhooks:test: the request has a body (Content-Type application/json, 2 bytes); the document declares none for testWebhook',
    ]);
    expect(requestProblems('POST', '/webhooks:test', { 'content-length': '0' })).toEqual([]);
    expect(requestProblems('POST', '/personal-links', { 'content-type': 'application/json', 'content-length': '2' })).toEqual([]);
  });
});

describe('Accept', () => {
  test.each([
    [undefined, true],
    ['', true],
    ['application/json', true],
    ['APPLICATION/JSON; charset=utf-8', true],
    ['*/*', true],
    ['application/*', true],
    ['application/*;q=0.1', true],
    ['text/html, application/json;q=0.9', true],
    ['*/*;q=0.5, application/json;q=0.001', true],
    ['application/json;q=0, */*', false],
    ['application/json; q=0.000, application/*', false],
    ['*/*;q=0.5, application/json;q=0', false],
    ['application/*;q=0, */*', false],
    ['*/*;q=0', false],
    ['application/problem+json', false],
    ['text/html', false],
    ['text/*, image/png', false],
    ['application/json;q=2', false],
    ['application/json;q=abc, */*;q=0', false],
    ['application/json;q=abc, */*', true],
  ])('%j admits JSON: %s', (accept, admitted) => {
    expect(acceptsJson(accept)).toBe(admitted);
  });

  test('an Accept that excludes JSON is 406 and nothing runs: no link is created', async () => {
    const campaign = (await sb.api('GET', '/campaigns')).body.items.find((c: { brandIds: string[] }) => c.brandIds.length === 1);
    const before = (await sb.api('GET', '/personal-links?limit=100')).body.items.length;
    let n = 0;
    for (const accept of ['application/json;q=0, */*', 'application/problem+json', 'text/html']) {
      const reply = await sb.api('POST', '/personal-links', { body: { campaignId: campaign.id, fullName: 'Pat' }, idempotencyKey: `accept-${++n}`, headers: { Accept: accept } });
      expect([reply.status, reply.headers.get('content-type'), reply.body.code]).toEqual([406, 'application/problem+json', 'not_acceptable']);
    }
    expect((await sb.api('GET', '/personal-links?limit=100')).body.items).toHaveLength(before);
    const created = await sb.api('POST', '/personal-links', { body: { campaignId: campaign.id, fullName: 'Pat' }, idempotencyKey: 'accept-ok', headers: { Accept: 'text/html;q=0.9, */*;q=0.1' } });
    expect(created.status).toBe(201);
    expect((await sb.api('GET', '/personal-links?limit=100')).body.items).toHaveLength(before + 1);
  });
});

describe('the served description', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is read as plain JSON
  let doc: any;
  beforeAll(async () => {
    doc = (await sb.api('GET', '/openapi.json', { key: null })).body;
  });

  test('lists this sandbox in servers, beside production', () => {
    expect(doc.servers).toEqual([
      { url: sb.info.baseUrl, description: expect.stringMatching(/^This sandbox/) },
      expect.objectContaining({ url: 'https://{host}/v1', 'x-environment': 'production' }),
    ]);
  });

  test('the error code is open: the known codes are documented, a code added later is still valid', async () => {
    const code = doc.components.schemas.ErrorCode;
    expect(code.anyOf).toEqual([{ $ref: '#/components/schemas/KnownErrorCode' }, { type: 'string' }]);
    expect(doc.components.schemas.KnownErrorCode.enum).toEqual(expect.arrayContaining(['invalid_request', 'not_found', 'rate_limited', 'not_acceptable']));
    const { ProblemDetail } = await import('../../src/api/generated/response-validators.js');
    const problem = { type: 'https://docs.svc.example/errors/x', title: 'X', status: 422, code: 'added_later', detail: 'a code this revision does not know' };
    expect(ProblemDetail(problem)).toBe(true);
    expect(ProblemDetail({ ...problem, code: 7 })).toBe(false);
  });

  test('Decimal has examples that match its pattern', () => {
    const decimal = doc.components.schemas.Decimal;
    expect(decimal.examples).toEqual(['1200', '12.50']);
    for (const example of decimal.examples) expect(example).toMatch(new RegExp(decimal.pattern));
  });
});
