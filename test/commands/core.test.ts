import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiDouble } from '../helpers/double.js';
import { runInProcess } from '../helpers/run.js';
import { tempConfigDir } from '../helpers/svc.js';

const KEY = 'svc_live_testkey0000000000wxyz';
const UUID = '3f1f5b0c-2d11-4c8e-9a59-0b7c2f0e1d8e';
let api: ApiDouble;
let env: Record<string, string>;

beforeEach(async () => {
  api = await new ApiDouble().start();
  env = { SVC_API_KEY: KEY, SVC_BASE_URL: api.baseUrl, SVC_CONFIG_DIR: tempConfigDir() };
});
afterEach(async () => {
  await api.stop();
});

const run = (...argv: string[]) => runInProcess(argv, env);
const oneErrorLine = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('error:'));

describe('reads against a misbehaving API', () => {
  it('prints the API object unchanged as one JSON line, unknown fields included', async () => {
    const me = { tenant: { id: UUID, locales: ['en-US'], approvalRequired: false, customFields: [] }, key: { name: 'k', scopes: ['PERSONAL_LINKS'], webhookUrl: null }, brands: [], environment: 'production', brandNew: { x: 1 } };
    api.on('GET /me', { body: me });
    const result = await run('me');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${JSON.stringify(me)}\n`);
    expect(result.stderr).toBe('');
  });

  it('waits out a 429 with Retry-After and succeeds', async () => {
    api.on('GET /me', { status: 429, headers: { 'retry-after': '1' }, body: { status: 429, code: 'rate_limited', detail: 'slow' } }, { body: { ok: 1 } });
    const started = Date.now();
    const result = await run('me');
    expect(result.exitCode).toBe(0);
    expect(api.count('GET /me')).toBe(2);
    // The retry waited for Retry-After (1 s), not a shorter backoff.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('exits 5 with one line after a burst of HTML 502s outlasts the retries', async () => {
    api.on('GET /me', { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' });
    const result = await run('--max-retries', '1', 'me');
    expect(result.exitCode).toBe(5);
    expect(oneErrorLine(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: http_502: HTTP 502 with a non-JSON body/m);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(api.count('GET /me')).toBe(2);
  });

  it('a 200 with a text body is a clear error, not a crash', async () => {
    api.on('GET /me', { status: 200, headers: { 'content-type': 'text/plain' }, body: 'OK' });
    const result = await run('me');
    expect(result.exitCode).toBe(5);
    expect(result.stderr).toMatch(/^error: invalid_response: the service answered 200 with a body that is not JSON/m);
  });

  it('shows unknown error codes as they come (exit 1), with errors[] field by field', async () => {
    api.on(`GET /personal-links/${UUID}`, {
      status: 422,
      body: { status: 422, code: 'something_new', detail: 'a new refusal', errors: [{ field: 'x', code: 'invalid', message: 'bad x' }] },
    });
    const result = await run('links', 'get', UUID);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('error: something_new: a new refusal\n  x: invalid: bad x\n');
  });

  it('maps 404 to 3 and 401/403 to 4', async () => {
    api.on(`GET /personal-links/${UUID}`, { status: 404, body: { status: 404, code: 'not_found', detail: 'no such link' } });
    api.on('GET /campaigns', { status: 403, body: { status: 403, code: 'insufficient_scope', detail: 'needs PERSONAL_LINKS' } });
    api.on('GET /me', { status: 401, body: { status: 401, code: 'invalid_api_key', detail: 'unknown key' } });
    expect((await run('links', 'get', UUID)).exitCode).toBe(3);
    expect((await run('campaigns', 'ls')).exitCode).toBe(4);
    const unauthorized = await run('me');
    expect(unauthorized.exitCode).toBe(4);
    expect(api.count('GET /me')).toBe(1);
  });

  it('with -o json the problem document goes to stderr as one JSON line', async () => {
    const problem = { type: 'about:blank', title: 'Not found', status: 404, code: 'not_found', detail: 'no such link' };
    api.on(`GET /personal-links/${UUID}`, { status: 404, body: problem });
    const result = await run('-o', 'json', 'links', 'get', UUID);
    expect(result.exitCode).toBe(3);
    expect(JSON.parse(result.stderr.trim())).toEqual(problem);
  });

  it('--all stops on an empty page that still carries a cursor', async () => {
    api.on('GET /personal-links?limit=100', { body: { items: [{ id: 'a' }], nextCursor: 'c1' } });
    api.on('GET /personal-links?limit=100&after=c1', { body: { items: [], nextCursor: 'c2' } });
    const result = await run('links', 'ls', '--all');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('{"id":"a"}\n');
    expect(api.count('GET /personal-links?limit=100&after=c2')).toBe(0);
  });

  it('-o json prints a list as one array', async () => {
    api.on('GET /campaigns?limit=2', { body: { items: [{ id: 1 }, { id: 2 }], nextCursor: 'c' } });
    const result = await run('campaigns', 'ls', '--limit', '2', '-o', 'json');
    expect(JSON.parse(result.stdout)).toEqual([{ id: 1 }, { id: 2 }]);
  });
});

describe('writes survive dropped connections without creating twice', () => {
  it('api POST retries a dropped connection with the same Idempotency-Key', async () => {
    api.on('POST /personal-links', { drop: true }, { status: 201, headers: { 'idempotent-replayed': 'true' }, body: { id: UUID } });
    const result = await run('api', 'POST', '/personal-links', '--data', '{"fullName":"A"}');
    expect(result.exitCode).toBe(0);
    const keys = api.requests.filter((request) => request.method === 'POST').map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(result.stderr).toContain('replayed');
    expect(JSON.parse(result.stdout)).toEqual({ id: UUID });
  });
});

describe('malformed invocations exit 2 before any request', () => {
  const cases: [string, string[], RegExp][] = [
    ['unknown flag', ['links', 'ls', '--bogus'], /unknown option/],
    ['unknown command', ['linkz'], /unknown command/],
    ['missing argument', ['links', 'get'], /missing required argument/],
    ['non-UUID id', ['links', 'get', 'abc'], /ID: not a valid id/],
    ['limit 0', ['links', 'ls', '--limit', '0'], /--limit: must be a whole number from 1 to 100/],
    ['limit 101', ['campaigns', 'ls', '--limit', '101'], /--limit/],
    ['limit text', ['orders', 'ls', '--limit', 'ten'], /--limit/],
    ['bad status', ['links', 'ls', '--status', 'OPEN'], /--status: must be one of REQUESTED/],
    ['bad campaign status', ['campaigns', 'ls', '--status', 'DRAFT'], /--status/],
    ['bad brand', ['stores', 'ls', '--brand', 'x'], /--brand: not a valid id/],
    ['store without country', ['stores', 'show', UUID, '--brand', UUID], /--country: required/],
    ['store bad country', ['stores', 'show', UUID, '--brand', UUID, '--country', 'DEU'], /--country: must be a two-letter/],
    ['store bad locale', ['stores', 'show', UUID, '--brand', UUID, '--country', 'DE', '--locale', 'german!'], /--locale/],
    ['bad output', ['-o', 'yaml', 'me'], /argument 'yaml' is invalid/],
    ['bad timeout', ['--timeout', '-1', 'me'], /--timeout/],
    ['bad max-retries', ['--max-retries', 'x', 'me'], /--max-retries/],
    ['bad rate', ['--rate', '0', 'me'], /--rate/],
    ['http base URL to a remote host', ['--base-url', 'http://api.example.com/v1', 'me'], /http:\/\/ is only allowed for loopback/],
    ['api with absolute URL', ['api', 'GET', 'https://evil.example/v1/me'], /PATH: must be a path/],
    ['api bad method', ['api', 'FETCH', '/me'], /METHOD/],
    ['api path leaving the base URL', ['api', 'GET', '/../admin'], /PATH: must stay under the base URL/],
    ['api path leaving it encoded', ['api', 'GET', '/%2e%2e/admin'], /PATH: must stay under the base URL/],
    ['api bad JSON', ['api', 'POST', '/personal-links', '--data', '{nope'], /--data: not valid JSON/],
    ['api paginate POST', ['api', 'POST', '/x', '--paginate'], /--paginate: only with GET/],
    ['api GET with a body', ['api', 'GET', '/me', '--data', '{"a":1}'], /--data: a GET has no body/],
    ['api path repeating /v1', ['api', 'GET', '/v1/me'], /base URL already ends in \/v1; use \/me/],
    ['a group without a verb', ['links'], /^error: usage_error: missing command/m],
    ['orders get bad id', ['orders', 'get', '12'], /ID: not a valid id/],
    ['completion bad shell', ['completion', 'powershell'], /shell: must be bash, zsh or fish/],
    ['login without a TTY', ['login'], /--api-key-stdin: required when not on a terminal/],
  ];
  for (const [name, argv, message] of cases) {
    it(name, async () => {
      const result = await run(...argv);
      expect(result.exitCode, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(oneErrorLine(result.stderr)).toHaveLength(1);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(api.requests).toHaveLength(0);
    });
  }

  it('no key configured exits 4 with a hint', async () => {
    const result = await runInProcess(['me'], { SVC_CONFIG_DIR: tempConfigDir(), SVC_BASE_URL: api.baseUrl });
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toMatch(/no API key configured for profile default/);
    expect(result.stderr).toMatch(/^hint: /m);
  });

  it('a key with surrounding white space is trimmed; one with a line break inside is refused at once', async () => {
    api.on('GET /me', { body: { ok: 1 } });
    const padded = await runInProcess(['me'], { ...env, SVC_API_KEY: ` ${KEY}\n` });
    expect(padded.exitCode).toBe(0);
    expect(api.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
    const broken = await runInProcess(['me'], { ...env, SVC_API_KEY: `${KEY.slice(0, 10)}\n${KEY.slice(10)}` });
    expect(broken.exitCode).toBe(4);
    expect(broken.stderr).toMatch(/SVC_API_KEY contains spaces or control characters/);
    expect(api.requests).toHaveLength(1);
  });

  it('an unknown --profile exits 4', async () => {
    const result = await runInProcess(['--profile', 'nope', 'me'], { SVC_CONFIG_DIR: tempConfigDir() });
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain('no profile named nope');
  });
});

describe('-o json lists stay valid JSON', () => {
  it('a page that fails after the first closes the array and still reports the error', async () => {
    api.on('GET /personal-links?limit=100', { body: { items: [{ id: 'a' }], nextCursor: 'c1' } });
    api.on('GET /personal-links?limit=100&after=c1', { status: 404, body: { status: 404, code: 'not_found', detail: 'cursor gone' } });
    const result = await run('links', 'ls', '--all', '-o', 'json');
    expect(result.exitCode).toBe(3);
    expect(JSON.parse(result.stdout)).toEqual([{ id: 'a' }]);
  });

  it('a first page that fails prints nothing on stdout; an empty list is []', async () => {
    api.on('GET /campaigns', { status: 401, body: { status: 401, code: 'invalid_api_key', detail: 'no' } });
    const failed = await run('campaigns', 'ls', '-o', 'json');
    expect(failed.exitCode).toBe(4);
    expect(failed.stdout).toBe('');
    api.on('GET /reward-stores', { body: { items: [], nextCursor: null } });
    expect((await run('stores', 'ls', '-o', 'json')).stdout).toBe('[]\n');
  });
});

describe('webhooks test', () => {
  it('sends one ping per call: a failure is reported, never retried', async () => {
    api.on('POST /webhooks:test', { status: 503, body: { status: 503, code: 'unavailable', detail: 'busy' } });
    const result = await run('webhooks', 'test');
    expect(result.exitCode).toBe(5);
    expect(api.count('POST /webhooks:test')).toBe(1);
  });

  it('a receiver that did not answer 2xx is exit 1 with an error line on stderr', async () => {
    api.on('POST /webhooks:test', { body: { responseStatus: 500, error: 'receiver answered 500' } });
    const result = await run('webhooks', 'test');
    expect(result.exitCode).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({ responseStatus: 500, error: 'receiver answered 500' });
    expect(result.stderr).toMatch(/^error: webhook_not_delivered: ping not delivered: the receiver answered 500/m);
  });
});

describe('bulk stops at a refused key', () => {
  it('a 401 ends the backfill with exit 4 and no further requests', async () => {
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const file = join(env.SVC_CONFIG_DIR, 'players.csv');
    writeFileSync(file, ['campaignId,fullName', ...Array.from({ length: 300 }, (_, i) => `${UUID},Player ${i}`)].join('\n'));
    api.on('POST /personal-links', { status: 401, body: { status: 401, code: 'invalid_api_key', detail: 'unknown key' } });
    const result = await run('links', 'create', '--from-file', file);
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toMatch(/^error: invalid_api_key: /m);
    // Only the rows already in flight when the first refusal came back were sent.
    expect(api.count('POST /personal-links')).toBeLessThanOrEqual(8);
  });

  it('a directory as --from-file is a usage error', async () => {
    const result = await run('links', 'create', '--from-file', env.SVC_CONFIG_DIR);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/--from-file: cannot read .*: a directory/);
  });
});
