/** `events tail` filters, --fields/-o csv, --give-up-after against a stopped server, and refused --forward-to, in-process. */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiDouble, doubleEachTest } from '../helpers/double.js';
import { CLOSED_PORT } from '../helpers/ports.js';
import { runInProcess } from '../helpers/run.js';
import { tempConfigDir } from '../helpers/svc.js';

const KEY = 'svc_live_testkey0000000000wxyz';
const LINK = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';
const ORDER = '3f1f5b0c-2d11-4c8e-9a59-0b7c2f0e1d8e';
const BRAND_A = '6cf764cf-ca59-43c5-b0e6-58c6862c38f0';
const BRAND_B = 'f747e6eb-f1bc-4746-8031-cfb8dbfdcec2';
const CAMPAIGN = 'af8ef016-2418-491f-9638-137c315ceafa';

const events = [
  { id: 'e1', type: 'personal_link.created', occurredAt: '2026-11-20T09:00:00.000000Z', environment: 'production', data: { id: LINK, brandId: BRAND_A, campaignId: CAMPAIGN, status: 'ACTIVE' } },
  { id: 'e2', type: 'order.approved', occurredAt: '2026-11-21T09:00:00.000000Z', environment: 'production', data: { id: ORDER, brandId: BRAND_B, status: 'PROCESSING', coinPrice: '-1', reference: '=cmd' } },
  { id: 'e3', type: 'personal_link.claimed', occurredAt: '2026-11-21T10:00:00.000000Z', environment: 'production', data: { id: LINK, brandId: BRAND_A, campaignId: CAMPAIGN, status: 'CLAIMED' } },
  { id: 'e4', type: 'order.sent', occurredAt: '2026-11-21T08:00:00.000000Z', environment: 'production', data: { id: ORDER, brandId: BRAND_B, status: 'SENT' } },
];

let api: ApiDouble;
let env: Record<string, string>;
doubleEachTest((double) => {
  api = double;
  env = { SVC_API_KEY: KEY, SVC_BASE_URL: api.baseUrl, SVC_CONFIG_DIR: tempConfigDir() };
});

/** The feed in two pages, then caught up. */
function scriptFeed(): void {
  api.on('GET /events?limit=100', { body: { items: events.slice(0, 2), nextCursor: 'c2' } });
  api.on('GET /events?after=c2&limit=100', { body: { items: events.slice(2), nextCursor: 'c4' } });
  api.on('GET /events?after=c4&limit=100', { body: { items: [], nextCursor: 'c4' } });
}
const run = (...argv: string[]) => runInProcess(argv, env);
const ids = (stdout: string) => stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line).id);

describe('events tail filters', () => {
  it('each filter alone and combined, in feed order', async () => {
    scriptFeed();
    const cases: [string[], string[]][] = [
      [['--link', LINK], ['e1', 'e3']],
      [['--order', ORDER], ['e2', 'e4']],
      [['--link', LINK, '--order', ORDER], ['e1', 'e2', 'e3', 'e4']],
      [['--brand', BRAND_B], ['e2', 'e4']],
      [['--campaign', CAMPAIGN], ['e1', 'e3']],
      // Save order, not occurredAt order: e4 occurred before --since and is left out, e3 after it is kept.
      [['--since', '2026-11-21T09:00:00Z'], ['e2', 'e3']],
      [['--since', '2026-11-21T09:00:00Z', '--type', 'order.'], ['e2']],
      [['--brand', BRAND_A, '--type', 'personal_link.claimed'], ['e3']],
    ];
    for (const [flags, expected] of cases) {
      const result = await run('events', 'tail', ...flags);
      expect({ flags, exitCode: result.exitCode, ids: ids(result.stdout), stderr: result.stderr }).toEqual({ flags, exitCode: 0, ids: expected, stderr: '' });
    }
  });

  it('a filtered run never moves the saved cursor; an unfiltered one does', async () => {
    scriptFeed();
    const filtered = await run('events', 'tail', '--resume', '--link', LINK);
    expect(filtered.stderr).toBe(
      'No saved cursor for profile default; starting from the oldest event.\nnote: with --type, -n or another filter the saved cursor is read but not moved\n',
    );
    expect(existsSync(join(env.SVC_CONFIG_DIR, 'config.json'))).toBe(false);
    await run('events', 'tail', '--resume');
    expect(JSON.parse(readFileSync(join(env.SVC_CONFIG_DIR, 'config.json'), 'utf8')).cursors.default[api.baseUrl]).toBe('c4');
  });

  it('bad filter values are usage errors before any request', async () => {
    for (const [flag, value, message] of [
      ['--link', 'nope', 'error: usage_error: --link: not a valid id (expected a UUID): nope'],
      ['--since', 'soon', 'error: usage_error: --since: expected a duration such as 15m, 2h or 7d, or an ISO time such as 2026-11-21T10:00:00Z, got "soon"'],
      ['--give-up-after', '0', 'error: usage_error: --give-up-after: must be a positive number, got 0'],
      ['--fields', 'id,data.nope', 'error: usage_error: --fields: unknown field data.nope; valid fields of an event: '],
    ]) {
      const result = await run('events', 'tail', flag, value);
      expect(result.exitCode).toBe(2);
      expect(result.stderr.startsWith(message), result.stderr).toBe(true);
      expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    }
    expect(api.requests).toEqual([]);
  });
});

describe('events tail --fields and -o csv', () => {
  it('JSON lines of the chosen fields; CSV with a header and the formula guard', async () => {
    scriptFeed();
    const jsonl = await run('events', 'tail', '--order', ORDER, '--fields', 'id,data.status,data.coinPrice');
    expect(jsonl.stdout).toBe('{"id":"e2","data":{"status":"PROCESSING","coinPrice":"-1"}}\n{"id":"e4","data":{"status":"SENT","coinPrice":null}}\n');
    const csv = await run('-o', 'csv', 'events', 'tail', '--order', ORDER, '--fields', 'occurredAt,type,data.reference,data.coinPrice');
    expect(csv.stdout).toBe('occurredAt,type,data.reference,data.coinPrice\n2026-11-21T09:00:00.000000Z,order.approved,\'=cmd,\'-1\n2026-11-21T08:00:00.000000Z,order.sent,,\n');
    expect(csv.exitCode).toBe(0);
  });
});

describe('events tail --follow --give-up-after', () => {
  it('against a stopped server: one status line, then exit 5 after the given time', async () => {
    const started = Date.now();
    const result = await runInProcess(['events', 'tail', '--follow', '--give-up-after', '1'], { ...env, SVC_BASE_URL: `http://127.0.0.1:${CLOSED_PORT}/v1` });
    const elapsed = Date.now() - started;
    expect(result.exitCode).toBe(5);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^… \d\d:\d\d:\d\d UTC feed unavailable, retrying with backoff \(giving up after 1s without success\): .*connection refused.*$/);
    expect(lines[1]).toMatch(/^error: feed_unavailable: no poll of the event feed succeeded for 1s \(last: .*connection refused.*\); giving up as --give-up-after asks$/);
    expect(lines[2]).toBe('hint: the saved cursor is kept; start again with --resume when the service is back');
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(elapsed).toBeLessThan(3000);
  });
});

describe('events tail --forward-to', () => {
  it('refuses plain http to a non-loopback host before any connection', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://10.1.2.3/hooks', 'http://hooks.example.test/x']) {
      const result = await runInProcess(['events', 'tail', '--forward-to', url], { ...env, SVC_WEBHOOK_SECRET: 'f'.repeat(64) });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toBe(`error: usage_error: --forward-to: plain http:// only to a loopback host (127.0.0.1, ::1, localhost); use https:// for ${new URL(url).hostname}\n`);
    }
    expect(api.requests).toEqual([]);
  });
});
