import { Agent } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';
import { createSandbox } from '../../src/sandbox/app.js';
import { type ListeningSandbox, listen } from '../../src/sandbox/server.js';
import { cancelOrder, placeOrders } from '../helpers/orders.js';
import type { Reply, TestSandbox } from './helpers.js';

/*
 * A sandbox restarted in-process on the same port with the same seed (docs/sandbox.md): the seed data and keys are the same, but records made while it runs get new random ids,
 * and every cursor the earlier run issued is refused (400 invalid_request on `after`).
 */

let running: ListeningSandbox | undefined;
/** Connections of one run only: a restarted sandbox is reached on new ones. */
let agent: Agent | undefined;
afterEach(stop);

/** One run, called on connections of its own, shaped as the other sandbox tests' handle. */
interface Run extends Pick<TestSandbox, 'api' | 'admin'> {
  apiKey: string;
  port: number;
}

async function start(port: number): Promise<Run> {
  const sandbox = createSandbox({ seed: 5, validateResponses: true });
  running = await listen(sandbox, '127.0.0.1', port);
  agent = new Agent();
  const dispatcher = agent;
  const info = sandbox.info(running.origin);
  const apiKey = info.keys.find((k) => k.name === 'full')!.apiKey;
  const call = async (url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<Reply> => {
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), dispatcher } as unknown as RequestInit);
    const text = await res.text();
    if (sandbox.responseViolations.length > 0) throw new Error(sandbox.responseViolations.join('\n'));
    return { status: res.status, headers: res.headers, text, body: text === '' ? undefined : JSON.parse(text) };
  };
  return {
    apiKey,
    port: Number(new URL(running.origin).port),
    api: (method, path, options = {}) =>
      call(`${info.baseUrl}${path}`, method, { Authorization: `Bearer ${apiKey}`, ...(options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {}) }, options.body),
    admin: (method, path, body) => call(`${info.adminUrl}${path}`, method, {}, body),
  };
}

async function stop(): Promise<void> {
  await running?.close();
  await agent?.close();
  running = undefined;
  agent = undefined;
}

const ids = (reply: Reply): string[] => reply.body.items.map((item: { id: string }) => item.id);

/** Places an order and cancels it as the team: one order.cancelled in the `full` key's feed. */
async function orderAndCancel(run: Run): Promise<string> {
  const [order] = await placeOrders(run, 1);
  await cancelOrder(run, order.id);
  return order.id;
}

const invalidAfter = {
  status: 400,
  body: expect.objectContaining({ code: 'invalid_request', errors: [expect.objectContaining({ field: 'after', code: 'invalid' })] }),
};

describe('a sandbox restarted with the same seed on the same port', () => {
  test('keeps the seed data and keys; an order cancelled in the second run has a new id', async () => {
    const first = await start(0);
    const seedCampaigns = ids(await first.api('GET', '/campaigns'));
    const firstOrder = await orderAndCancel(first);
    const firstFeed = ids(await first.api('GET', '/events?limit=100'));
    await stop();

    const second = await start(first.port);
    expect(second.apiKey).toBe(first.apiKey);
    expect(ids(await second.api('GET', '/campaigns'))).toEqual(seedCampaigns);
    const secondOrder = await orderAndCancel(second);
    expect(secondOrder).not.toBe(firstOrder);
    const feed = await second.api('GET', '/events?limit=100');
    const secondFeed = ids(feed);
    // The seed's own events are the same; the events of this run (order.cancelled) are new.
    const cancelled = feed.body.items.filter((e: { type: string }) => e.type === 'order.cancelled');
    expect(cancelled.map((e: { data: { id: string } }) => e.data.id)).toEqual([secondOrder]);
    expect(secondFeed.slice(0, -1)).toEqual(firstFeed.slice(0, -1));
    expect(secondFeed.at(-1)).not.toBe(firstFeed.at(-1));
  });

  test("refuses the first run's cursors: the feed's and every list's", async () => {
    const first = await start(0);
    await orderAndCancel(first);
    const cursors = {
      events: (await first.api('GET', '/events?limit=1')).body.nextCursor as string,
      links: (await first.api('GET', '/personal-links?limit=1')).body.nextCursor as string,
      campaigns: (await first.api('GET', '/campaigns?limit=1')).body.nextCursor as string,
    };
    for (const cursor of Object.values(cursors)) expect(cursor).toEqual(expect.any(String));
    // Within the run the cursors work.
    expect((await first.api('GET', `/events?after=${cursors.events}`)).status).toBe(200);
    await stop();

    const second = await start(first.port);
    await orderAndCancel(second);
    expect(await second.api('GET', `/events?after=${cursors.events}`)).toMatchObject(invalidAfter);
    expect(await second.api('GET', `/personal-links?after=${cursors.links}`)).toMatchObject(invalidAfter);
    expect(await second.api('GET', `/campaigns?after=${cursors.campaigns}`)).toMatchObject(invalidAfter);
    // A cursor of this run is read as before.
    const own = (await second.api('GET', '/events?limit=1')).body.nextCursor;
    expect((await second.api('GET', `/events?after=${own}`)).status).toBe(200);
  });
});
