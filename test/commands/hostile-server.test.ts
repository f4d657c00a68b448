/**
 * A hostile server against whole commands (the strict double, and the in-process sandbox where a
 * record must carry the text): escape sequences in every field, in problem details and in the keys of
 * objects; huge answers; invalid JSON. On a terminal nothing reaches it raw; JSON written to a
 * terminal escapes C0, C1 and bidirectional controls and parses to the same value; CSV header cells
 * are guarded like data cells; every attack ends in bounded time.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cleanup.js';
import { ApiDouble, doubleEachTest } from '../helpers/double.js';
import { runAtTerminal, runInProcess } from '../helpers/run.js';
import { startSandbox } from '../sandbox/helpers.js';

/** C0 (ESC, BEL, backspace, CR), C1 (CSI, OSC), every bidi override and isolate, the direction marks. */
const HOSTILE = 'x\x1b]0;pwned\x07\x1b[2J\b\r\u009b31m\u009d\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061cy';
/** Anything a terminal would act on. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let api: ApiDouble;
let env: Record<string, string>;
doubleEachTest((double) => {
  api = double;
  env = api.env(tempDir(), { PATH: process.env.PATH ?? '/usr/bin:/bin' });
});

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const event = (n: number, extra: Record<string, unknown> = {}) => ({
  id: uuid(100 + n),
  type: 'order.cancelled',
  occurredAt: '2026-11-24T10:00:00.000000Z',
  environment: 'production',
  data: { id: uuid(n), status: 'CANCELLED', coinPrice: '10', currency: { name: HOSTILE, symbol: HOSTILE }, reference: HOSTILE, [HOSTILE]: HOSTILE, ...extra },
});

describe('JSON on a terminal', () => {
  it('events tail -o jsonl: C0, C1 and bidi controls in values and keys are \\u escapes; each line parses to the event', async () => {
    const items = [event(1), event(2)];
    api.on('GET /events?limit=100', { body: { items, nextCursor: 'c1' } }).on('GET /events?after=c1&limit=100', { body: { items: [], nextCursor: 'c1' } });
    const result = await runAtTerminal(['-o', 'jsonl', 'events', 'tail'], env, 200);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toMatch(RAW);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual(items);
    expect(lines[0]).toContain(String.raw`x\u001b]0;pwned\u0007\u001b[2J\b\r\u009b31m\u009d\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061cy`);
  });

  it('in a pipe the same events are written exactly as received', async () => {
    const items = [event(1)];
    api.on('GET /events?limit=100', { body: { items, nextCursor: 'c1' } }).on('GET /events?after=c1&limit=100', { body: { items: [], nextCursor: 'c1' } });
    const result = await runInProcess(['events', 'tail'], env);
    expect(result.stdout).toBe(`${JSON.stringify(items[0])}\n`);
  });

  it('trigger on a terminal: the events it caused, escaped, equal when parsed', async () => {
    const sandbox = await startSandbox();
    try {
      const me = (await sandbox.api('GET', '/me')).body;
      const field = me.tenant.customFields.find((f: { type: string }) => f.type === 'TEXT');
      const link = (await sandbox.admin('POST', '/links', { brandId: me.brands[0].id, fullName: 'Ada', customFields: [{ fieldId: field.id, textValue: `t${HOSTILE}` }] })).body;
      const result = await runAtTerminal(['trigger', 'personal_link.cancelled', '--link', link.id], { ...env, SVC_API_KEY: sandbox.apiKey('full'), SVC_BASE_URL: sandbox.info.baseUrl }, 200);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).not.toMatch(RAW);
      const [caused] = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
      expect(caused).toMatchObject({ type: 'personal_link.cancelled', data: { id: link.id } });
      // Its controls reached the terminal escaped, and parse back whole.
      const answer = caused.data.customFields.find((f: { fieldId: string }) => f.fieldId === field.id).textValue;
      expect(answer).toBe(`t${HOSTILE}`);
      expect(result.stdout).toContain(String.raw`\u202e`);
    } finally {
      await sandbox.close();
    }
  });
});

describe('server text on stderr', () => {
  it('refunds run --follow: a failing poll whose problem detail carries escapes shows them escaped', async () => {
    api
      .on('GET /events?limit=100', { status: 503, body: { status: 503, code: 'unavailable', title: 't', type: 'about:blank', detail: `down ${HOSTILE}` } }, { status: 401, body: { status: 401, code: 'invalid_api_key', title: 't', type: 'about:blank', detail: `no ${HOSTILE}` } });
    const ledger = `${tempDir()}/ledger.jsonl`;
    const result = await runAtTerminal(['refunds', 'run', '--follow', '--interval', '1', '--ledger', ledger, '--exec', 'true'], env, 200);
    expect(result.exitCode).toBe(4);
    expect(result.stderr).not.toMatch(RAW);
    expect(result.stderr).toContain(String.raw`feed unavailable, retrying with backoff: down x\x1b]0;pwned\x07\x1b[2J\x08\x0d\u009b31m`);
  });

  it('refunds mark: a refused price look-up with a hostile detail is noted escaped', async () => {
    const id = uuid(7);
    api
      .on(`GET /reward-store-orders/${id}`, { body: { id, status: 'CANCELLED', coinPrice: '5', currency: { name: 'Coins', symbol: 'C' } } })
      .on('GET /events?limit=100', { status: 400, body: { status: 400, code: 'invalid_request', title: 't', type: 'about:blank', detail: `bad ${HOSTILE}` } });
    const result = await runAtTerminal(['refunds', 'mark', id, '--ledger', `${tempDir()}/ledger.jsonl`], env, 200);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).not.toMatch(RAW);
    expect(result.stderr.split('\n')[0]).toMatch(/^note: could not look up prices \(bad x\\x1b\]0;pwned.*\); recording what is known$/);
  });

  it('an error whose code, detail and field errors carry escapes, in table and in JSON error output', async () => {
    const problem = { status: 422, code: `c${HOSTILE}`, title: 't', type: 'about:blank', detail: `d${HOSTILE}`, errors: [{ field: `f${HOSTILE}`, code: 'invalid', message: `m${HOSTILE}` }] };
    api.on('GET /me', { status: 422, body: problem });
    const table = await runAtTerminal(['me'], env, 200);
    expect(table.exitCode).toBe(1);
    expect(table.stderr).not.toMatch(RAW);
    const json = await runAtTerminal(['-o', 'json', 'me'], env, 200);
    expect(json.stderr).not.toMatch(RAW);
    expect(JSON.parse(json.stderr)).toEqual(problem);
  });
});

describe('CSV', () => {
  it('header cells from the server\'s keys are guarded against formulas like data cells', async () => {
    api.on('GET /campaigns', { body: { items: [{ '=cmd|calc': '=1+1', '+a': '-b', '@c': 'ok' }], nextCursor: null } });
    const result = await runInProcess(['-o', 'csv', 'api', 'GET', '/campaigns', '--paginate'], env);
    expect(result).toEqual({ exitCode: 0, stdout: `'=cmd|calc,'+a,'@c\n'=1+1,'-b,ok\n`, stderr: '' });
  });
});

describe('answers too large or broken, through whole commands', () => {
  /** An endless JSON body. */
  const endless = (response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    response.write('{"items":[');
    const pump = () => {
      while (!response.destroyed) {
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
    };
    response.on('error', () => undefined);
    pump();
  };

  it('svc me against an endless answer: exit 5 response_too_large after one request, quickly', async () => {
    api.on('GET /me', { respond: endless });
    const started = performance.now();
    const result = await runInProcess(['me'], env);
    expect(result).toEqual({ exitCode: 5, stdout: '', stderr: `error: response_too_large: GET ${api.baseUrl}/me: the answer is larger than 32 MiB; svc stopped reading it (not retried)\n` });
    expect(api.count('GET /me')).toBe(1);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('events tail --follow: an endless answer ends the run (not waited out as a passing outage)', async () => {
    api.on('GET /events?limit=100', { respond: endless });
    const result = await runInProcess(['events', 'tail', '--follow', '--interval', '0.01'], env);
    expect(result.exitCode).toBe(5);
    expect(result.stderr).toBe(`error: response_too_large: GET ${api.baseUrl}/events?limit=100: the answer is larger than 32 MiB; svc stopped reading it (not retried)\n`);
    expect(api.count('GET /events?limit=100')).toBe(1);
  });

  it('invalid JSON in a list answer: one error line, no crash', async () => {
    api.on('GET /campaigns', { status: 200, headers: { 'content-type': 'application/json' }, body: '{"items": [' });
    const result = await runInProcess(['--max-retries', '0', 'campaigns', 'ls'], env);
    expect(result.exitCode).toBe(5);
    expect(result.stderr).toBe('error: invalid_response: the service answered 200 with a body that is not JSON (application/json): {"items": [\n');
  });
});

describe('refunds mark trusts only an answer about the order asked for', () => {
  it('a CANCELLED answer carrying another order id (or none): exit 1 naming the id, nothing recorded', async () => {
    const [asked, other, nameless] = [uuid(21), uuid(22), uuid(23)];
    const cancelledOrder = { status: 'CANCELLED', coinPrice: '5', currency: { name: 'Coins', symbol: 'C' } };
    api
      .on(`GET /reward-store-orders/${asked}`, { body: { id: other, ...cancelledOrder } })
      .on(`GET /reward-store-orders/${nameless}`, { body: cancelledOrder });
    const ledger = `${tempDir()}/ledger.jsonl`;
    const result = await runInProcess(['refunds', 'mark', asked, nameless, '--ledger', ledger], env);
    expect(result).toEqual({
      exitCode: 1,
      stdout: '',
      stderr:
        `error: not_refundable: nothing was recorded: ${asked}: the service answered with another order (${other}); ${nameless}: the service answered with no order id\n` +
        'hint: only cancelled orders of this key are refunded; to record a refund made for another reason anyway: svc refunds mark --force ORDER_ID…\n',
    });
    expect(existsSync(ledger)).toBe(false);
  });
});

describe('a page that is not a page', () => {
  it('refunds run: a body without an items array ends the run (exit 5); its cursor is not saved, so no event is skipped', async () => {
    const ledger = `${tempDir()}/ledger.jsonl`;
    api.on('GET /events?limit=100', { body: { items: 'abc', nextCursor: 'X' } });
    const result = await runInProcess(['refunds', 'run', '--ledger', ledger, '--exec', 'true'], env);
    expect(result).toEqual({ exitCode: 5, stdout: '', stderr: 'error: invalid_response: GET /events answered a page with no items array; it is not read as an empty page\n' });
    expect(existsSync(`${ledger}.cursor`)).toBe(false);
  });
});

describe('refunds run pays only what reads as a refund', () => {
  it('an order id that is not a UUID, or a price that is not a decimal: exit 5 before CMD runs, nothing recorded, the cursor stays before it', async () => {
    const dir = tempDir();
    const ledger = `${dir}/ledger.jsonl`;
    const paidLog = `${dir}/paid.log`;
    const refund = (n: number, data: Record<string, unknown>) => ({ id: `e${n}`, type: 'order.cancelled', occurredAt: '2026-11-24T10:00:00.000000Z', environment: 'production', data: { status: 'CANCELLED', currency: { name: 'Coins', symbol: 'C' }, ...data } });
    const cases = [
      [{ id: '../../etc/passwd', coinPrice: '5' }, 'its order id is not a UUID'],
      [{ id: uuid(32), coinPrice: { amount: 5 } }, 'its coinPrice is not a decimal'],
      [{ id: uuid(33) }, 'its coinPrice is not a decimal'],
    ] as const;
    // One answer a run: each run reads the feed from the start again (its cursor never moved).
    api.on('GET /events?limit=100', ...cases.map(([bad]) => ({ body: { items: [refund(1, { id: uuid(31), coinPrice: '5' }), refund(2, bad)], nextCursor: 'X' } })));
    for (const [bad, problem] of cases) {
      const result = await runInProcess(['refunds', 'run', '--ledger', ledger, '--exec', 'echo "$SVC_REFUND_ORDER_ID" >> "$PAID"'], { ...env, PAID: paidLog });
      expect(result.exitCode).toBe(5);
      expect(result.stderr.split('\n')[0]).toBe(`error: invalid_response: event e2 (order.cancelled of ${bad.id}): ${problem}; nothing was paid or recorded for it, and the refund cursor stays before it`);
      expect(existsSync(`${ledger}.cursor`)).toBe(false);
    }
    // Only the good refund, once (the ledger holds it across the three runs).
    expect(readFileSync(paidLog, 'utf8')).toBe(`${uuid(31)}\n`);
  });
});
