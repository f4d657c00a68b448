import { Agent } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';
import { createSandbox } from '../../src/sandbox/app.js';
import { type ListeningSandbox, listen } from '../../src/sandbox/server.js';

/*
 * A sandbox restarted in-process on the same port with the same seed (contract, "Trust what svc
 * reads"): the seed data and keys are the same, but records made while it runs get new random ids,
 * and every cursor the earlier run issued is refused (400 invalid_request on `after`).
 */

let running: ListeningSandbox | undefined;
/** Connections of one run only: a restarted sandbox is reached on new ones. */
let agent: Agent | undefined;
afterEach(stop);

interface Run {
  baseUrl: string;
  adminUrl: string;
  apiKey: string;
  port: number;
}

async function start(port: number): Promise<Run> {
  const sandbox = createSandbox({ seed: 5, validateResponses: true });
  running = await listen(sandbox, '127.0.0.1', port);
  agent = new Agent();
  const info = sandbox.info(running.origin);
  return { baseUrl: info.baseUrl, adminUrl: info.adminUrl, apiKey: info.keys.find((k) => k.name === 'full')!.apiKey, port: Number(new URL(running.origin).port) };
}

async function stop(): Promise<void> {
  await running?.close();
  await agent?.close();
  running = undefined;
  agent = undefined;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON read by assertions
async function api(run: Run, method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { Authorization: `Bearer ${run.apiKey}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
  const res = await fetch(`${run.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), dispatcher: agent } as RequestInit);
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function admin(run: Run, method: string, path: string): Promise<number> {
  const res = await fetch(`${run.adminUrl}${path}`, { method, dispatcher: agent } as RequestInit);
  await res.arrayBuffer();
  return res.status;
}

/** Places the same order (same body, same Idempotency-Key) and cancels it as the team. */
async function orderAndCancel(run: Run): Promise<string> {
  const stores = (await api(run, 'GET', '/reward-stores')).body.items;
  const live = stores.find((s: { phase: string }) => s.phase === 'LIVE');
  const store = (await api(run, 'GET', `/reward-stores/${live.id}?brandId=${live.brandIds[0]}&country=DE`)).body;
  const gift = store.sections.flatMap((s: { items: { dimensions: unknown[] }[] }) => s.items).find((g: { dimensions: unknown[] }) => g.dimensions.length === 0);
  const placed = await api(
    run,
    'POST',
    '/reward-store-orders',
    {
      storeId: live.id,
      brandId: live.brandIds[0],
      productId: gift.productId,
      variations: {},
      coinPrice: gift.coinPrice,
      recipient: { name: 'R', phone: '+4915112345678', address: { street: 'S 1', city: 'Berlin', postalCode: '10115', country: 'DE' } },
    },
    'same-order',
  );
  expect(placed.status).toBe(201);
  expect(await admin(run, 'POST', `/orders/${placed.body.id}/cancel`)).toBe(200);
  return placed.body.id as string;
}

const invalidAfter = {
  status: 400,
  body: expect.objectContaining({ code: 'invalid_request', errors: [expect.objectContaining({ field: 'after', code: 'invalid' })] }),
};

describe('a sandbox restarted with the same seed on the same port', () => {
  test('keeps the seed data and keys; an order cancelled in the second run has a new id', async () => {
    const first = await start(0);
    const seedCampaigns = (await api(first, 'GET', '/campaigns')).body.items.map((c: { id: string }) => c.id);
    const firstOrder = await orderAndCancel(first);
    const firstFeed = (await api(first, 'GET', '/events?limit=100')).body.items.map((e: { id: string }) => e.id);
    await stop();

    const second = await start(first.port);
    expect(second.apiKey).toBe(first.apiKey);
    expect((await api(second, 'GET', '/campaigns')).body.items.map((c: { id: string }) => c.id)).toEqual(seedCampaigns);
    const secondOrder = await orderAndCancel(second);
    expect(secondOrder).not.toBe(firstOrder);
    const secondFeed = (await api(second, 'GET', '/events?limit=100')).body.items.map((e: { id: string }) => e.id);
    // The seed's own events are the same; the events of this run (order.cancelled) are new.
    const cancelled = (await api(second, 'GET', '/events?limit=100')).body.items.filter((e: { type: string }) => e.type === 'order.cancelled');
    expect(cancelled.map((e: { data: { id: string } }) => e.data.id)).toEqual([secondOrder]);
    expect(secondFeed.slice(0, -1)).toEqual(firstFeed.slice(0, -1));
    expect(secondFeed.at(-1)).not.toBe(firstFeed.at(-1));
  });

  test("refuses the first run's cursors: the feed's and every list's", async () => {
    const first = await start(0);
    await orderAndCancel(first);
    const cursors = {
      events: (await api(first, 'GET', '/events?limit=1')).body.nextCursor as string,
      links: (await api(first, 'GET', '/personal-links?limit=1')).body.nextCursor as string,
      campaigns: (await api(first, 'GET', '/campaigns?limit=1')).body.nextCursor as string,
    };
    for (const cursor of Object.values(cursors)) expect(cursor).toEqual(expect.any(String));
    // Within the run the cursors work.
    expect((await api(first, 'GET', `/events?after=${cursors.events}`)).status).toBe(200);
    await stop();

    const second = await start(first.port);
    await orderAndCancel(second);
    expect(await api(second, 'GET', `/events?after=${cursors.events}`)).toEqual(invalidAfter);
    expect(await api(second, 'GET', `/personal-links?after=${cursors.links}`)).toEqual(invalidAfter);
    expect(await api(second, 'GET', `/campaigns?after=${cursors.campaigns}`)).toEqual(invalidAfter);
    // A cursor of this run is read as before.
    const own = (await api(second, 'GET', '/events?limit=1')).body.nextCursor;
    expect((await api(second, 'GET', `/events?after=${own}`)).status).toBe(200);
  });
});
