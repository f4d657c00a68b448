/**
 * Views for people at the command layer, against a strict API double (an unexpected request fails
 * the test): names beside ids read once per run, nothing extra for JSON, JSON lines and CSV, widths
 * at 80 and 200 columns, `events stats`, and the small fixes (loopback refusal, `api` paths, help).
 */
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import stringWidth from 'string-width';
import { ApiDouble } from '../helpers/double.js';
import { runAtTerminal, runInProcess } from '../helpers/run.js';

const BRAND = '6cf764cf-ca59-43c5-b0e6-58c6862c38f0';
const CAMPAIGN = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';
const FIELD = '7f33eb38-2382-46ea-9990-8bc2195e3caa';
const LINK = '8b23f0e7-d976-4a9a-8f5b-3a0e7b9ada6d';
const ORDER = 'afbb54b2-acb6-4805-b783-ffed9f4194df';
const T = '2026-11-24T14:05:07.123456Z';

const me = {
  tenant: { id: CAMPAIGN, locales: ['en-US'], approvalRequired: false, customFields: [{ id: FIELD, label: 'Player ID', type: 'TEXT', required: true, options: [] }] },
  key: { name: 'full', scopes: ['PERSONAL_LINKS', 'REWARD_STORES'], webhookUrl: null },
  brands: [{ id: BRAND, name: 'Lucky Star Casino' }],
  environment: 'production',
};
const campaigns = { items: [{ id: CAMPAIGN, name: 'VIP Winter Gifts', status: 'ACTIVE', brandIds: [BRAND], expiresAt: null }], nextCursor: null };
const link = {
  id: LINK, campaignId: CAMPAIGN, selection: null, brandId: BRAND, status: 'CANCELLED', claimUrl: `https://gifts.example/claim/${LINK}`,
  customFields: [{ fieldId: FIELD, textValue: 'P-1', checked: null }], expiresAt: null, createdAt: T, approvedAt: null, claimedAt: null, cancelledAt: T, updatedAt: T,
};
const event = (id: string, type: string, occurredAt: string, data: Record<string, unknown>) => ({ id, type, occurredAt, environment: 'production', data });

let api: ApiDouble;
let env: Record<string, string>;

beforeEach(async () => {
  api = await new ApiDouble().start();
  env = api.env('/nonexistent-svc-config');
});
afterEach(async () => {
  await api.stop();
});

const paths = () => api.requests.map((request) => `${request.method} ${request.path.replace(/^\/v1/, '')}`);
const widest = (text: string) => Math.max(...text.split('\n').map((line) => stringWidth(line)));

describe('names beside ids', () => {
  it('links ls at 80 columns: campaign and brand by name, ids and status whole; /me and /campaigns read once', async () => {
    api.on('GET /me', { body: me }).on('GET /campaigns?limit=100', { body: campaigns });
    api.on('GET /personal-links', { body: { items: [link, { ...link, id: ORDER, status: 'ACTIVE', campaignId: null, selection: 'CATALOG' }], nextCursor: null } });
    const result = await runAtTerminal(['links', 'ls'], env, 80);
    expect(result).toEqual({
      exitCode: 0,
      stderr: '',
      stdout: [
        '┌──────────────────────────────────────┬───────────┬─────────────┬─────────────┐',
        '│ ID                                   │ Status    │ Campaign    │ Brand       │',
        `│ ${LINK} │ CANCELLED │ VIP Winter… │ Lucky Star… │`,
        `│ ${ORDER} │ ACTIVE    │ catalog     │ Lucky Star… │`,
        '└──────────────────────────────────────┴───────────┴─────────────┴─────────────┘',
        '',
      ].join('\n'),
    });
    expect(paths().sort()).toEqual(['GET /campaigns?limit=100', 'GET /me', 'GET /personal-links']);
    // A wider terminal shows more: whole names and the creation time.
    const wide = await runAtTerminal(['links', 'ls'], env, 200);
    expect(wide.stdout.split('\n')[2]).toBe(`│ ${LINK} │ CANCELLED │ VIP Winter Gifts │ Lucky Star Casino │ ${T} │`);
  });

  it('JSON lines, JSON and CSV stay the API\'s objects and make no request for names', async () => {
    api.on('GET /personal-links', { body: { items: [link], nextCursor: null } });
    for (const format of ['jsonl', 'json', 'csv']) {
      const result = await runAtTerminal(['-o', format, 'links', 'ls'], env, 80);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).not.toContain('Lucky');
    }
    api.on(`GET /personal-links/${LINK}`, { body: link });
    expect((await runAtTerminal(['-o', 'jsonl', 'links', 'get', LINK], env, 80)).stdout).toBe(`${JSON.stringify(link)}\n`);
    expect(paths()).toEqual(['GET /personal-links', 'GET /personal-links', 'GET /personal-links', `GET /personal-links/${LINK}`]);
  });

  it('links get: names with the ids kept, field labels; a failed lookup falls back to ids without an error or retries', async () => {
    api.on(`GET /personal-links/${LINK}`, { body: link }).on('GET /me', { body: me }).on('GET /campaigns?limit=100', { body: campaigns });
    const named = await runAtTerminal(['links', 'get', LINK], env, 80);
    expect(named.stdout.split('\n').slice(2, 5)).toEqual(['Status     CANCELLED', `Campaign   VIP Winter Gifts (${CAMPAIGN})`, `Brand      Lucky Star Casino (${BRAND})`]);
    expect(named.stdout).toContain('  Player ID: P-1');
    await api.stop();

    api = await new ApiDouble().start();
    const failing = { ...env, SVC_BASE_URL: api.baseUrl };
    api.on(`GET /personal-links/${LINK}`, { body: link });
    api.on('GET /me', { status: 503, body: { status: 503, code: 'unavailable', detail: 'down' } });
    api.on('GET /campaigns?limit=100', { status: 403, body: { status: 403, code: 'insufficient_scope', detail: 'no' } });
    const plain = await runAtTerminal(['links', 'get', LINK], failing, 80);
    expect(plain.exitCode).toBe(0);
    expect(plain.stderr).toBe('');
    expect(plain.stdout.split('\n').slice(3, 5)).toEqual([`Campaign   ${CAMPAIGN}`, `Brand      ${BRAND}`]);
    expect(plain.stdout).toContain(`  ${FIELD}: P-1`);
    expect(paths().sort()).toEqual(['GET /campaigns?limit=100', 'GET /me', `GET /personal-links/${LINK}`]);
  });

  it('events tail at 80 columns: date and time to the second, whole type, status, names; 200 columns add the id and the decimals', async () => {
    api.on('GET /me', { body: me }).on('GET /campaigns?limit=100', { body: campaigns });
    const order = { id: ORDER, status: 'CANCELLED', brandId: BRAND, coinPrice: '1100', currency: { name: 'Star Coins', symbol: 'SC' }, reference: 'SVC-000065', productName: 'Hoodie' };
    const feed = [event('e1', 'personal_link.cancelled', T, link), event('e2', 'order.cancelled', T, order)];
    api.on('GET /events?limit=100', { body: { items: feed, nextCursor: 'c1' } });
    api.on('GET /events?after=c1&limit=100', { body: { items: [], nextCursor: 'c1' } });
    const narrow = await runAtTerminal(['events', 'tail'], env, 80);
    expect(narrow.stdout).toBe(
      [
        'Time                  Type                     Status      Details',
        '2026-11-24T14:05:07Z  personal_link.cancelled  CANCELLED   VIP Winter Gifts · L…',
        '2026-11-24T14:05:07Z  order.cancelled          CANCELLED   1100 SC  SVC-000065 …',
        '',
      ].join('\n'),
    );
    const wide = await runAtTerminal(['events', 'tail'], env, 200);
    expect(wide.stdout.split('\n').slice(1, 3)).toEqual([
      `${T}  personal_link.cancelled  ${LINK}  CANCELLED   VIP Winter Gifts · Lucky Star Casino`,
      `${T}  order.cancelled          ${ORDER}  CANCELLED   1100 SC  SVC-000065  Hoodie · Lucky Star Casino`,
    ]);
    expect(widest(narrow.stdout)).toBeLessThanOrEqual(80);
  });

  it('an unknown --type is warned about with the nearest known type, and the filter still runs', async () => {
    api.on('GET /events?limit=100', { body: { items: [event('e1', 'order.canceled', T, {})], nextCursor: null } });
    const result = await runInProcess(['events', 'tail', '--type', 'order.canceled', '--type', 'order.'], env);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('warning: --type order.canceled matches no known event type; did you mean order.cancelled? (filtering anyway)\n');
    expect(JSON.parse(result.stdout).type).toBe('order.canceled');
  });
});

describe('events stats', () => {
  // A fixed afternoon (only Date is faked): a 6 h window that crossed midnight would date its peaks.
  const now = Date.parse('2026-11-28T15:40:00Z');
  beforeEach(() => void vi.useFakeTimers({ toFake: ['Date'], now }));
  afterEach(() => void vi.useRealTimers());
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString().replace('Z', '000Z');
  const hour = (minutesAgo: number) => new Date(Math.floor((now - minutesAgo * 60_000) / 3_600_000) * 3_600_000).toISOString().replace('Z', '000Z');
  const feed = [
    event('e1', 'order.cancelled', at(130), { brandId: BRAND }),
    event('e2', 'order.cancelled', at(10), { brandId: BRAND }),
    event('e3', 'order.cancelled', at(10), { brandId: BRAND }),
    event('e4', 'personal_link.created', at(70), { brandId: 'other' }),
    event('e5', 'order.sent', at(60 * 30), { brandId: BRAND }),
  ];
  const script = () => {
    api.on('GET /events?limit=100', { body: { items: feed.slice(0, 3), nextCursor: 'c1' } });
    api.on('GET /events?after=c1&limit=100', { body: { items: feed.slice(3), nextCursor: 'c2' } });
    api.on('GET /events?after=c2&limit=100', { body: { items: [], nextCursor: 'c2' } });
  };

  it('in a pipe: one JSON line per bucket and type, every bucket of the last 3 h, zeros too', async () => {
    script();
    const result = await runInProcess(['events', 'stats', '--since', '3h'], env);
    expect(result.exitCode).toBe(0);
    const rows = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
    const buckets = [...new Set(rows.map((row) => row.bucketStart))];
    expect(buckets).toEqual([hour(180), hour(120), hour(60), hour(0)].filter((value, index, all) => all.indexOf(value) === index));
    const count = (type: string, bucket: string) => rows.find((row) => row.type === type && row.bucketStart === bucket)?.count;
    expect(count('order.cancelled', hour(130))).toBe(1);
    expect(count('order.cancelled', hour(10))).toBe(2);
    expect(count('personal_link.created', hour(70))).toBe(1);
    expect(rows.some((row) => row.type === 'order.sent')).toBe(false);
    expect(rows.reduce((sum, row) => sum + row.count, 0)).toBe(4);
    expect(Object.keys(rows[0])).toEqual(['bucketStart', 'type', 'count']);
  });

  it('--type and --brand filter; -o csv has a header row', async () => {
    script();
    const result = await runInProcess(['-o', 'csv', 'events', 'stats', '--since', '3h', '--bucket', '3h', '--type', 'order.', '--brand', BRAND], env);
    expect(result.exitCode).toBe(0);
    const [header, ...lines] = result.stdout.trim().split('\n');
    expect(header).toBe('bucketStart,type,count');
    expect(lines.every((line) => line.split(',')[1] === 'order.cancelled')).toBe(true);
    expect(lines.reduce((sum, line) => sum + Number(line.split(',')[2]), 0)).toBe(3);
  });

  it('on a terminal: a chart that fits 80 columns, a row per type, totals, peaks and a time axis; 200 columns draw wider bars', async () => {
    script();
    const narrow = await runAtTerminal(['events', 'stats', '--since', '6h', '--bucket', '1h'], env, 80);
    expect(narrow.exitCode).toBe(0);
    const lines = narrow.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('4 events per hour, 2026-11-28 09:40–16:00 UTC · each row scaled to its peak');
    expect(lines[2].trim()).toBe('total');
    const row = (type: string) => lines.find((line) => line.startsWith(type))!;
    expect(row('order.cancelled')).toMatch(/^order\.cancelled {8}[·▁▂▃▄▅▆▇█ ]+ {2,}3 {2}peak 2 at 15:00$/);
    expect(row('personal_link.created')).toMatch(/^personal_link\.created {2}[·▁▂▃▄▅▆▇█ ]+ {2,}1 {2}peak 1 at 14:00$/);
    expect(row('all types')).toMatch(/ 4 {2}peak 2 at 15:00$/);
    expect(lines.at(-2)?.trim()).toMatch(/^\d\d:00( +\d\d:00)+$/);
    expect(widest(narrow.stdout)).toBeLessThanOrEqual(80);
    // The scripted pages repeat: the second run reads the same feed.
    const wide = await runAtTerminal(['events', 'stats', '--since', '6h', '--bucket', '1h'], env, 200);
    expect(wide.stdout.split('\n').find((line) => line.startsWith('order.cancelled'))).toMatch(/(█{3}|·  ) /);
    expect(widest(wide.stdout)).toBeLessThanOrEqual(200);
  });

  it('a bucket too small for the range is a usage error before any request', async () => {
    const result = await runInProcess(['events', 'stats', '--since', '30d', '--bucket', '1s'], env);
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: 'error: usage_error: --bucket: 1s over 30d makes more than 10000 buckets; choose a larger bucket or a shorter --since\n' });
    const bad = await runInProcess(['events', 'stats', '--bucket', 'soon'], env);
    expect(bad.stderr).toBe('error: usage_error: --bucket: expected a duration such as 5m, 1h or 1d, got "soon"\n');
  });
});

describe('hints and small fixes', () => {
  it('a loopback base URL that refuses connections fails at once, without retries, with the sandbox hint', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const started = performance.now();
    const result = await runInProcess(['me'], { ...env, SVC_BASE_URL: `http://127.0.0.1:${port}/v1` });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(result).toEqual({
      exitCode: 5,
      stdout: '',
      stderr: `error: connection_error: could not reach http://127.0.0.1:${port}: connection refused\nhint: is the sandbox running? start it with: svc sandbox\n`,
    });
  });

  it('svc api GET me takes a path without its leading /', async () => {
    api.on('GET /me', { body: me });
    const result = await runInProcess(['api', 'GET', 'me'], env);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(me);
  });

  it('help shows no (default: []) for repeatable flags', async () => {
    for (const verb of [['links', 'create'], ['orders', 'place'], ['events', 'tail'], ['events', 'stats'], ['api']]) {
      const result = await runInProcess([...verb, '--help'], env);
      expect(result.stdout + result.stderr).not.toContain('(default: [])');
    }
  });
});
