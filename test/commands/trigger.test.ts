import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/api/types.js';
import { ApiDouble } from '../helpers/double.js';
import { runInProcess } from '../helpers/run.js';
import { jsonLines } from '../helpers/lines.js';
import { startReceiver, startSandboxWithConfig, type TestSandbox } from '../sandbox/helpers.js';

let sandbox: TestSandbox;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  ({ sandbox, dir, env } = await startSandboxWithConfig());
});
afterEach(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (...argv: string[]) => runInProcess(argv, env);

/** The key's whole feed (the sandbox's own pages, read directly). */
async function feedItems(): Promise<{ id: string; type: string; data: { id: string } }[]> {
  const items = [];
  let after: string | null = null;
  for (;;) {
    const page = await sandbox.api('GET', `/events?limit=100${after ? `&after=${after}` : ''}`);
    items.push(...page.body.items);
    if (page.body.items.length === 0 || page.body.nextCursor === after) return items;
    after = page.body.nextCursor;
  }
}

/** What each type's trigger should cause, in feed order, without ids given. */
const CAUSED: Record<string, string[]> = {
  'personal_link.created': ['personal_link.created'],
  'personal_link.approved': ['personal_link.created', 'personal_link.approved'],
  'personal_link.claimed': ['personal_link.created', 'personal_link.claimed'],
  'personal_link.cancelled': ['personal_link.created', 'personal_link.cancelled'],
  'personal_link.expired': ['personal_link.created', 'personal_link.expired'],
  'order.approved': ['order.approved'],
  'order.cancelled': ['order.cancelled'],
  'order.sent': ['order.sent'],
  'order.completed': ['order.sent', 'order.completed'],
};

describe('svc trigger', () => {
  for (const type of EVENT_TYPES.filter((t) => t !== 'ping')) {
    it(`${type}: the feed gains the event, and exactly the new events are printed`, async () => {
      const before = await feedItems();
      const result = await run('trigger', type);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      const after = await feedItems();
      const added = after.slice(before.length);
      expect(added.map((event) => event.type)).toEqual(CAUSED[type]);
      expect(result.stdout).toBe(added.map((event) => `${JSON.stringify(event)}\n`).join(''));
      // The account's approval setting is left as it was.
      expect((await sandbox.admin('PATCH', '/settings', {})).body.approvalRequired).toBe(false);
    });
  }

  it('ping: delivered to the key\'s webhook URL and printed from the delivery list', async () => {
    const receiver = await startReceiver(200);
    try {
      expect((await sandbox.admin('PATCH', '/keys/full', { webhookUrl: receiver.url })).status).toBe(200);
      const result = await run('trigger', 'ping');
      expect(result.exitCode).toBe(0);
      expect(receiver.received).toHaveLength(1);
      const ping = JSON.parse(receiver.received[0].body);
      expect(ping.type).toBe('ping');
      const [line] = jsonLines(result.stdout);
      expect(line).toEqual({ eventId: ping.id, type: 'ping', keyName: 'full', url: receiver.url, attempt: 1, status: 200, error: null, at: line.at });
    } finally {
      await receiver.close();
    }
  });

  it('acts on a given order and link, walking it forward to the event', async () => {
    const placed = jsonLines((await run('trigger', 'order.approved')).stdout)[0].data;
    const sent = await run('trigger', 'order.completed', '--order', placed.id);
    expect(sent.exitCode).toBe(0);
    expect(jsonLines(sent.stdout).map((e) => [e.type, e.data.id])).toEqual([
      ['order.sent', placed.id],
      ['order.completed', placed.id],
    ]);
    const link = jsonLines((await run('trigger', 'personal_link.created')).stdout)[0].data;
    const cancelled = await run('trigger', 'personal_link.cancelled', '--link', link.id);
    expect(jsonLines(cancelled.stdout).map((e) => [e.type, e.data.id])).toEqual([['personal_link.cancelled', link.id]]);
    // A move the record's status no longer allows is the sandbox's refusal (exit 1).
    const again = await run('trigger', 'personal_link.cancelled', '--link', link.id);
    expect(again.exitCode).toBe(1);
  });

  it('with approval required: links and orders are approved on the way, and the setting stays on', async () => {
    await sandbox.admin('PATCH', '/settings', { approvalRequired: true });
    const claimed = await run('trigger', 'personal_link.claimed');
    expect(claimed.exitCode).toBe(0);
    expect(jsonLines(claimed.stdout).map((e) => [e.type, e.data.status])).toEqual([
      ['personal_link.created', 'REQUESTED'],
      ['personal_link.approved', 'ACTIVE'],
      ['personal_link.claimed', 'CLAIMED'],
    ]);
    const sent = await run('trigger', 'order.sent');
    expect(jsonLines(sent.stdout).map((e) => e.type)).toEqual(['order.approved', 'order.sent']);
    const approved = await run('trigger', 'order.approved');
    expect(jsonLines(approved.stdout).map((e) => e.type)).toEqual(['order.approved']);
    expect((await sandbox.admin('PATCH', '/settings', {})).body.approvalRequired).toBe(true);
  });

  it('refuses an unknown type and misplaced ids before anything is sent (exit 2)', async () => {
    const api = await new ApiDouble().start();
    try {
      const local = { ...env, SVC_BASE_URL: api.baseUrl };
      expect(await runInProcess(['trigger', 'order.refunded'], local)).toEqual({
        exitCode: 2,
        stdout: '',
        stderr: `error: usage_error: TYPE: unknown event type order.refunded; one of ${EVENT_TYPES.join(', ')}\n`,
      });
      expect((await runInProcess(['trigger', 'ping', '--order', '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11'], local)).exitCode).toBe(2);
      expect((await runInProcess(['trigger', 'order.sent', '--order', 'nope'], local)).exitCode).toBe(2);
      expect(api.requests).toEqual([]);
    } finally {
      await api.stop();
    }
  });

  it('a loopback base URL that is not a sandbox: exit 2 after one keyless probe, nothing else sent', async () => {
    const api = await new ApiDouble().start();
    try {
      api.on('GET /_sandbox/clock', { status: 500, body: 'not here' });
      const result = await runInProcess(['trigger', 'order.cancelled'], { ...env, SVC_BASE_URL: api.baseUrl });
      const admin = api.baseUrl.replace(/\/v1$/, '/_sandbox');
      expect(result).toEqual({
        exitCode: 2,
        stdout: '',
        stderr: `error: usage_error: ${api.baseUrl} is not a svc sandbox: GET ${admin}/clock did not answer as the sandbox does (it answered 500); nothing else was sent\nhint: trigger works only against \`svc sandbox\`; check --base-url or --profile\n`,
      });
      expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /_sandbox/clock']);
      expect(api.requests[0].headers.authorization).toBeUndefined();
    } finally {
      await api.stop();
    }
  });

  it('a base URL that is not on loopback is refused before any connection (exit 2)', async () => {
    const result = await runInProcess(['trigger', 'ping'], { ...env, SVC_BASE_URL: 'https://api.example.test/v1' });
    expect(result).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: 'error: usage_error: trigger works only against a local svc sandbox; https://api.example.test/v1 is not on a loopback address (nothing was sent)\nhint: start one with `svc sandbox` and use --profile sandbox\n',
    });
  });
});
