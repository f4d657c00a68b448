import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir as tempConfigDir } from '../helpers/cleanup.js';
import { ApiDouble } from '../helpers/double.js';
import { runInProcess } from '../helpers/run.js';
import { waits } from '../helpers/virtual-time.js';

// Retry waits pass in virtual time; the tests read the waits svc asked for.
vi.mock('../../src/core/sleep.js', () => import('../helpers/virtual-time.js'));

const KEY = 'svc_live_testkey0000000000wxyz';
const UUID = '3f1f5b0c-2d11-4c8e-9a59-0b7c2f0e1d8e';
let api: ApiDouble;
let env: Record<string, string>;

beforeEach(async () => {
  waits.length = 0;
  api = await new ApiDouble().start();
  env = { SVC_API_KEY: KEY, SVC_BASE_URL: api.baseUrl, SVC_CONFIG_DIR: tempConfigDir() };
});
afterEach(async () => {
  await api.stop();
});

const run = (...argv: string[]) => runInProcess(argv, env);
const jsonError = (text: string): string => {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} is valid JSON`);
};

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
    const result = await run('me');
    expect(result).toEqual({ exitCode: 0, stdout: '{"ok":1}\n', stderr: '' });
    expect(api.count('GET /me')).toBe(2);
    // The retry waited for Retry-After (1 s, plus at most 100 ms of jitter), not a shorter backoff.
    expect(waits.filter((ms) => ms >= 1000)).toHaveLength(1);
    expect(Math.max(...waits)).toBeLessThanOrEqual(1100);
  });

  it('exits 5 with one line after a burst of HTML 502s outlasts the retries', async () => {
    api.on('GET /me', { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' });
    const result = await run('--max-retries', '1', 'me');
    expect(result).toEqual({
      exitCode: 5,
      stdout: '',
      stderr: 'error: http_502: HTTP 502 with a non-JSON body (text/html): <html><body><h1>502 Bad Gateway</h1></body></html> (after 2 attempts)\n',
    });
    expect(api.count('GET /me')).toBe(2);
    // One back-off before the one retry: about 1 s (±25% jitter).
    expect(waits).toEqual([expect.any(Number)]);
    expect(waits[0]).toBeGreaterThanOrEqual(750);
    expect(waits[0]).toBeLessThanOrEqual(1250);
  });

  it('a 200 with a text body is a clear error, not a crash', async () => {
    api.on('GET /me', { status: 200, headers: { 'content-type': 'text/plain' }, body: 'OK' });
    const result = await run('me');
    expect(result).toEqual({ exitCode: 5, stdout: '', stderr: 'error: invalid_response: the service answered 200 with a body that is not JSON (text/plain): OK\n' });
  });

  it('shows unknown error codes as they come (exit 1), with errors[] field by field', async () => {
    api.on(`GET /personal-links/${UUID}`, {
      status: 422,
      body: { status: 422, code: 'something_new', detail: 'a new refusal', errors: [{ field: 'x', code: 'invalid', message: 'bad x' }] },
    });
    const result = await run('links', 'get', UUID);
    expect(result).toEqual({ exitCode: 1, stdout: '', stderr: 'error: something_new: a new refusal\n  x: invalid: bad x\n' });
  });

  it('maps 404 to 3 and 401/403 to 4', async () => {
    api.on(`GET /personal-links/${UUID}`, { status: 404, body: { status: 404, code: 'not_found', detail: 'no such link' } });
    api.on('GET /campaigns', { status: 403, body: { status: 403, code: 'insufficient_scope', detail: 'needs PERSONAL_LINKS' } });
    api.on('GET /me', { status: 401, body: { status: 401, code: 'invalid_api_key', detail: 'unknown key' } });
    expect(await run('links', 'get', UUID)).toEqual({ exitCode: 3, stdout: '', stderr: 'error: not_found: no such link\n' });
    expect(await run('campaigns', 'ls')).toEqual({ exitCode: 4, stdout: '', stderr: 'error: insufficient_scope: needs PERSONAL_LINKS\n' });
    expect(await run('me')).toEqual({ exitCode: 4, stdout: '', stderr: 'error: invalid_api_key: unknown key\n' });
    expect(api.count('GET /me')).toBe(1);
  });

  it('with -o json the problem document goes to stderr as one JSON line', async () => {
    const problem = { type: 'about:blank', title: 'Not found', status: 404, code: 'not_found', detail: 'no such link' };
    api.on(`GET /personal-links/${UUID}`, { status: 404, body: problem });
    const result = await run('-o', 'json', 'links', 'get', UUID);
    expect(result).toEqual({ exitCode: 3, stdout: '', stderr: `${JSON.stringify(problem)}\n` });
  });

  it('--all stops on an empty page that still carries a cursor', async () => {
    api.on('GET /personal-links?limit=100', { body: { items: [{ id: 'a' }], nextCursor: 'c1' } });
    api.on('GET /personal-links?limit=100&after=c1', { body: { items: [], nextCursor: 'c2' } });
    const result = await run('links', 'ls', '--all');
    // The strict double fails the test if svc asks for ?after=c2.
    expect(result).toEqual({ exitCode: 0, stdout: '{"id":"a"}\n', stderr: '' });
  });

  it('-o json prints a list as one array', async () => {
    api.on('GET /campaigns?limit=2', { body: { items: [{ id: 1 }, { id: 2 }], nextCursor: 'c' } });
    const result = await run('campaigns', 'ls', '--limit', '2', '-o', 'json');
    expect(result).toEqual({ exitCode: 0, stdout: '[\n  {\n    "id": 1\n  },\n  {\n    "id": 2\n  }\n]\n', stderr: '' });
  });
});

describe('writes survive dropped connections without creating twice', () => {
  it('api POST retries a dropped connection with the same Idempotency-Key', async () => {
    api.on('POST /personal-links', { drop: true }, { status: 201, headers: { 'idempotent-replayed': 'true' }, body: { id: UUID } });
    const result = await run('api', 'POST', '/personal-links', '--data', '{"fullName":"A"}');
    const keys = api.requests.filter((request) => request.method === 'POST').map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(result).toEqual({
      exitCode: 0,
      stdout: `{"id":"${UUID}"}\n`,
      stderr: `note: replayed: the service returned the stored response for Idempotency-Key ${keys[0]}; nothing ran twice\n`,
    });
  });
});

describe('malformed invocations exit 2 before any request', () => {
  // The whole of stderr, one usage error line (BASE stands for the double's base URL).
  const cases: [string, string[], string][] = [
    ['unknown flag', ['links', 'ls', '--bogus'], "unknown option '--bogus'"],
    ['unknown command', ['linkz'], "unknown command 'linkz'\nhint: Did you mean links?"],
    ['missing argument', ['links', 'get'], "missing required argument 'id'"],
    ['non-UUID id', ['links', 'get', 'abc'], 'ID: not a valid id (expected a UUID): abc'],
    ['limit 0', ['links', 'ls', '--limit', '0'], '--limit: must be a whole number from 1 to 100, got 0'],
    ['limit 101', ['campaigns', 'ls', '--limit', '101'], '--limit: must be a whole number from 1 to 100, got 101'],
    ['limit text', ['orders', 'ls', '--limit', 'ten'], '--limit: must be a whole number from 1 to 100, got ten'],
    ['bad status', ['links', 'ls', '--status', 'OPEN'], '--status: must be one of REQUESTED, ACTIVE, CLAIMED, EXPIRED, CANCELLED, got OPEN'],
    ['bad campaign status', ['campaigns', 'ls', '--status', 'DRAFT'], '--status: must be one of ACTIVE, COMPLETED, got DRAFT'],
    // --brand also takes a brand's name (looked up in GET /me); a value begun as an id is checked as one.
    ['bad brand', ['stores', 'ls', '--brand', '6cf764cf-ca59'], '--brand: not a valid id (expected a UUID): 6cf764cf-ca59'],
    ['store without country', ['stores', 'show', UUID, '--brand', UUID], '--country: required (two-letter delivery country, e.g. DE)'],
    ['store bad country', ['stores', 'show', UUID, '--brand', UUID, '--country', 'DEU'], '--country: must be a two-letter ISO 3166-1 country code, got DEU'],
    ['store bad locale', ['stores', 'show', UUID, '--brand', UUID, '--country', 'DE', '--locale', 'german!'], '--locale: not a language tag such as en-US or de-DE: german!'],
    ['bad output', ['-o', 'yaml', 'me'], "option '-o, --output <format>' argument 'yaml' is invalid. Allowed choices are table, json, jsonl, csv."],
    ['bad timeout', ['--timeout', '-1', 'me'], '--timeout: must be a positive number, got -1'],
    ['bad max-retries', ['--max-retries', 'x', 'me'], '--max-retries: must be a whole number ≥ 0, got x'],
    ['bad rate', ['--rate', '0', 'me'], '--rate: must be a whole number ≥ 1, got 0'],
    ['http base URL to a remote host', ['--base-url', 'http://api.example.com/v1', 'me'], '--base-url: http:// is only allowed for loopback hosts; use https://'],
    ['api with absolute URL', ['api', 'GET', 'https://evil.example/v1/me'], 'PATH: must be a path relative to the base URL, such as /me (got https://evil.example/v1/me)'],
    ['api bad method', ['api', 'FETCH', '/me'], 'METHOD: must be one of GET, POST, PUT, PATCH, DELETE, got FETCH'],
    ['api path leaving the base URL', ['api', 'GET', '/../admin'], 'PATH: must stay under the base URL BASE (got /../admin)'],
    ['api path leaving it encoded', ['api', 'GET', '/%2e%2e/admin'], 'PATH: must stay under the base URL BASE (got /%2e%2e/admin)'],
    // The parser's own words, which differ between Node versions.
    ['api bad JSON', ['api', 'POST', '/personal-links', '--data', '{nope'], `--data: not valid JSON (${jsonError('{nope')})`],
    ['api paginate POST', ['api', 'POST', '/x', '--paginate'], '--paginate: only with GET'],
    ['api GET with a body', ['api', 'GET', '/me', '--data', '{"a":1}'], "--data: a GET has no body; put parameters in PATH's query"],
    ['api path repeating /v1', ['api', 'GET', '/v1/me'], 'PATH: the base URL already ends in /v1; use /me'],
    ['orders get bad id', ['orders', 'get', '12'], 'ID: not a valid id (expected a UUID): 12'],
    ['completion bad shell', ['completion', 'powershell'], 'shell: must be bash, zsh or fish, got powershell'],
    ['login without a TTY', ['login'], '--api-key-stdin: required when not on a terminal (keys are never taken as flag values)\nhint: printf "%s\\n" "$KEY" | svc login --api-key-stdin'],
  ];
  for (const [name, argv, message] of cases) {
    it(name, async () => {
      const result = await run(...argv);
      expect(result).toEqual({ exitCode: 2, stdout: '', stderr: `error: usage_error: ${message.replace('BASE', api.baseUrl)}\n` });
      expect(api.requests).toHaveLength(0);
    });
  }

  it('a group without a verb shows its help, then the error, on stderr', async () => {
    const result = await run('links');
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    const [help, error] = result.stderr.split('\n\nerror: ');
    expect(help).toMatch(/^Usage: svc links \[options\] \[command\]\n\npersonal gift links: list, read, create, cancel\n\nOptions:\n[^]*\nExamples:\n(  \$ svc links .+\n)*  \$ svc links .+$/);
    expect(error).toBe('usage_error: missing command (see the list above)\n');
    expect(api.requests).toHaveLength(0);
  });

  it('no key configured exits 4 with a hint', async () => {
    const result = await runInProcess(['me'], { SVC_CONFIG_DIR: tempConfigDir(), SVC_BASE_URL: api.baseUrl });
    expect(result).toEqual({
      exitCode: 4,
      stdout: '',
      stderr: "error: no_api_key: no API key configured for profile default\nhint: run 'svc login', set SVC_API_KEY, or start 'svc sandbox' and use --profile sandbox\n",
    });
  });

  it('a key with surrounding white space is trimmed; one with a line break inside is refused at once', async () => {
    api.on('GET /me', { body: { ok: 1 } });
    const padded = await runInProcess(['me'], { ...env, SVC_API_KEY: ` ${KEY}\n` });
    expect(padded).toEqual({ exitCode: 0, stdout: '{"ok":1}\n', stderr: '' });
    expect(api.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
    const broken = await runInProcess(['me'], { ...env, SVC_API_KEY: `${KEY.slice(0, 10)}\n${KEY.slice(10)}` });
    expect(broken).toEqual({ exitCode: 4, stdout: '', stderr: 'error: no_api_key: the API key in SVC_API_KEY contains spaces or control characters\n' });
    expect(api.requests).toHaveLength(1);
  });

  it('an unknown --profile exits 4', async () => {
    const result = await runInProcess(['--profile', 'nope', 'me'], { SVC_CONFIG_DIR: tempConfigDir() });
    expect(result).toEqual({
      exitCode: 4,
      stdout: '',
      stderr: "error: no_api_key: no profile named nope\nhint: run 'svc login --profile nope', set SVC_API_KEY, or start 'svc sandbox' and use --profile sandbox\n",
    });
  });
});

describe('-o json lists stay valid JSON', () => {
  it('a page that fails after the first closes the array and still reports the error', async () => {
    api.on('GET /personal-links?limit=100', { body: { items: [{ id: 'a' }], nextCursor: 'c1' } });
    api.on('GET /personal-links?limit=100&after=c1', { status: 404, body: { status: 404, code: 'not_found', detail: 'cursor gone' } });
    const result = await run('links', 'ls', '--all', '-o', 'json');
    expect(result).toEqual({ exitCode: 3, stdout: '[\n  {\n    "id": "a"\n  }\n]\n', stderr: '{"status":404,"code":"not_found","detail":"cursor gone"}\n' });
  });

  it('a first page that fails prints nothing on stdout; an empty list is []', async () => {
    api.on('GET /campaigns', { status: 401, body: { status: 401, code: 'invalid_api_key', detail: 'no' } });
    const failed = await run('campaigns', 'ls', '-o', 'json');
    expect(failed).toEqual({ exitCode: 4, stdout: '', stderr: '{"status":401,"code":"invalid_api_key","detail":"no"}\n' });
    api.on('GET /reward-stores', { body: { items: [], nextCursor: null } });
    expect(await run('stores', 'ls', '-o', 'json')).toEqual({ exitCode: 0, stdout: '[]\n', stderr: '' });
  });
});

describe('webhooks test', () => {
  it('sends one ping per call: a failure is reported, never retried', async () => {
    api.on('POST /webhooks:test', { status: 503, body: { status: 503, code: 'unavailable', detail: 'busy' } });
    const result = await run('webhooks', 'test');
    expect(result).toEqual({ exitCode: 5, stdout: '', stderr: 'error: unavailable: busy\n' });
    expect(api.count('POST /webhooks:test')).toBe(1);
    expect(waits).toEqual([]);
  });

  it('a receiver that did not answer 2xx is exit 1 with an error line on stderr', async () => {
    api.on('POST /webhooks:test', { body: { responseStatus: 500, error: 'receiver answered 500' } });
    const result = await run('webhooks', 'test');
    expect(result).toEqual({
      exitCode: 1,
      stdout: '{"responseStatus":500,"error":"receiver answered 500"}\n',
      stderr: 'error: webhook_not_delivered: ping not delivered: the receiver answered 500\n',
    });
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
    expect(result).toEqual({ exitCode: 4, stdout: '', stderr: 'error: invalid_api_key: unknown key\n' });
    // Only the rows already in flight when the first refusal came back were sent.
    expect(api.count('POST /personal-links')).toBeLessThanOrEqual(8);
  });

  it('a directory as --from-file is a usage error', async () => {
    const result = await run('links', 'create', '--from-file', env.SVC_CONFIG_DIR);
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: `error: usage_error: --from-file: cannot read ${env.SVC_CONFIG_DIR}: a directory\n` });
  });
});
