import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, test, vi } from 'vitest';
import { type ReceivedWebhook, type TestSandbox, startReceiver, startSandbox } from './helpers.js';

/** An independent implementation of the spec's verification steps. */
function verify(delivery: ReceivedWebhook, secret: string): boolean {
  const header = String(delivery.headers['svc-signature']);
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${delivery.body}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function createLink(sb: TestSandbox, as: 'full' | 'other' | 'links', name = 'P') {
  const campaign = (await sb.api('GET', '/campaigns', { as })).body.items.find((c: { name: string }) => c.name === 'Birthday Gifts 2026');
  const me = (await sb.api('GET', '/me', { as })).body;
  const brandId = campaign.brandIds.find((b: string) => me.brands.some((x: { id: string }) => x.id === b));
  const reply = await sb.api('POST', '/personal-links', { as, body: { campaignId: campaign.id, brandId, fullName: name }, idempotencyKey: `${as}-${name}-${Math.random()}` });
  expect(reply.status).toBe(201);
  return reply.body;
}

describe('event feed', () => {
  test('cursor on every page, resume skips nothing, same cursor back on an empty page, null only for an empty feed', async () => {
    const sb = await startSandbox();
    try {
      const empty = await sb.api('GET', '/events', { as: 'stores' });
      expect(empty.body).toEqual({ items: [], nextCursor: null });

      const first = await sb.api('GET', '/events?limit=2');
      expect(first.body.items).toHaveLength(2);
      let cursor: string = first.body.nextCursor;
      const rest = await sb.api('GET', `/events?after=${cursor}&limit=100`);
      const all = [...first.body.items, ...rest.body.items];
      expect(all.length).toBeGreaterThanOrEqual(4);
      cursor = rest.body.nextCursor;
      expect(cursor).toEqual(expect.any(String));
      const nothingNew = await sb.api('GET', `/events?after=${cursor}`);
      expect(nothingNew.body).toEqual({ items: [], nextCursor: cursor });

      const link = await createLink(sb, 'full', 'Later');
      const resumed = await sb.api('GET', `/events?after=${cursor}`);
      expect(resumed.body.items.map((e: { type: string; data: { id: string } }) => [e.type, e.data.id])).toEqual([['personal_link.created', link.id]]);
      const ids = all.map((e: { id: string }) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const e of all) {
        expect(Object.keys(e)).toEqual(['id', 'type', 'occurredAt', 'environment', 'data']);
        expect(e.environment).toBe('production');
      }

      expect((await sb.api('GET', '/events?after=bm9wZQ')).status).toBe(400);
      const badLimit = await sb.api('GET', '/events?limit=0');
      expect(badLimit.body.errors[0].field).toBe('limit');
    } finally {
      await sb.close();
    }
  });

  test('events are kept 30 days on the virtual clock', async () => {
    const sb = await startSandbox();
    try {
      const old = (await sb.api('GET', '/events?limit=100')).body.items.map((e: { id: string }) => e.id);
      expect(old.length).toBeGreaterThan(0);
      await sb.admin('POST', '/clock', { advanceSeconds: 29 * 86400 });
      expect((await sb.api('GET', '/events?limit=100')).body.items.map((e: { id: string }) => e.id).slice(0, old.length)).toEqual(old);
      await sb.admin('POST', '/clock', { advanceSeconds: 2 * 86400 });
      const fresh = await createLink(sb, 'full', 'Fresh');
      const feed = (await sb.api('GET', '/events?limit=100')).body.items;
      expect(feed.some((e: { id: string }) => old.includes(e.id))).toBe(false);
      // What remains: the expiry of the 30-day campaign's links (made during the advance) and the new link.
      expect(feed.map((e: { type: string }) => e.type)).toEqual(['personal_link.expired', 'personal_link.created']);
      expect(feed[feed.length - 1].data.id).toBe(fresh.id);
    } finally {
      await sb.close();
    }
  });

  test('the feed follows scopes and brands and includes the key\'s own changes', async () => {
    const sb = await startSandbox();
    try {
      const mine = await createLink(sb, 'links', 'Own');
      const feed = await sb.api('GET', '/events?limit=100', { as: 'links' });
      const limitedBrand = (await sb.api('GET', '/me', { as: 'links' })).body.brands[0].id;
      expect(feed.body.items.every((e: { data: { brandId: string } }) => e.data.brandId === limitedBrand)).toBe(true);
      expect(feed.body.items.map((e: { data: { id: string } }) => e.data.id)).toContain(mine.id);
      expect((await sb.api('GET', '/events?limit=100', { as: 'stores' })).body.items).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

describe('webhook delivery', () => {
  test('signed deliveries with the event bytes; own changes are not sent to the key; expiry goes to everyone', async () => {
    const sb = await startSandbox();
    const fullReceiver = await startReceiver();
    const otherReceiver = await startReceiver();
    try {
      await sb.admin('PATCH', '/keys/full', { webhookUrl: fullReceiver.url });
      await sb.admin('PATCH', '/keys/other', { webhookUrl: otherReceiver.url });
      const link = await createLink(sb, 'full', 'Hooked');
      const [delivery] = await otherReceiver.waitFor(1);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(verify(delivery, sb.secret('other'))).toBe(true);
      expect(verify(delivery, sb.secret('full'))).toBe(false);
      const event = JSON.parse(delivery.body);
      expect(delivery.headers['svc-event-id']).toBe(event.id);
      expect(event).toMatchObject({ type: 'personal_link.created', environment: 'production', data: { id: link.id } });
      const feed = (await sb.api('GET', '/events?limit=100')).body.items;
      const fromFeed = feed.find((e: { id: string }) => e.id === event.id);
      expect(JSON.stringify(fromFeed)).toBe(delivery.body);
      expect(fullReceiver.received).toHaveLength(0);

      const campaignId = link.campaignId;
      await sb.admin('POST', `/campaigns/${campaignId}/complete`);
      // Every open link of the campaign expires, each delivery on its own connection, in no fixed order.
      const expiredIds = () => fullReceiver.received.map((d) => JSON.parse(d.body)).filter((e) => e.type === 'personal_link.expired').map((e) => e.data.id);
      for (const deadline = Date.now() + 5000; !expiredIds().includes(link.id) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
      const expiredForFull = fullReceiver.received.map((d) => JSON.parse(d.body)).filter((e) => e.type === 'personal_link.expired');
      expect(expiredForFull.map((e) => e.data.id)).toContain(link.id);
      expect(fullReceiver.received.every((d) => verify(d, sb.secret('full')))).toBe(true);
      const deliveries = (await sb.admin('GET', '/deliveries')).body.items;
      expect(deliveries[0]).toMatchObject({ eventId: event.id, type: 'personal_link.created', keyName: 'other', url: otherReceiver.url, attempt: 1, status: 200, error: null });
    } finally {
      await Promise.all([sb.close(), fullReceiver.close(), otherReceiver.close()]);
    }
  });

  test('deliveries that have ended leave nothing waiting on the sandbox: twelve of them, no listener warning', async () => {
    // Each delivery watches for the sandbox stopping; one watcher left behind per delivery grows for
    // as long as `svc sandbox` runs, and Node warns at the eleventh.
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const sb = await startSandbox();
    const receiver = await startReceiver(200);
    try {
      await sb.admin('PATCH', '/keys/other', { webhookUrl: receiver.url });
      for (let i = 0; i < 12; i++) await createLink(sb, 'full', `Hooked ${i}`);
      expect(await receiver.waitFor(12)).toHaveLength(12);
      expect(warnings.filter((warning) => warning.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await Promise.all([sb.close(), receiver.close()]);
    }
  });

  test('failures are retried on the virtual clock, 8 attempts in all', async () => {
    const sb = await startSandbox();
    const receiver = await startReceiver(500);
    try {
      await sb.admin('PATCH', '/keys/other', { webhookUrl: receiver.url });
      const link = await createLink(sb, 'full', 'Retry');
      await receiver.waitFor(1);
      const delays = [60, 300, 1800, 3600, 10800, 21600, 43200];
      for (let i = 0; i < delays.length; i++) {
        await sb.admin('POST', '/clock', { advanceSeconds: delays[i] - 1 });
        expect(receiver.received).toHaveLength(i + 1);
        await sb.admin('POST', '/clock', { advanceSeconds: 1 });
        expect(receiver.received).toHaveLength(i + 2);
      }
      await sb.admin('POST', '/clock', { advanceSeconds: 86400 });
      expect(receiver.received).toHaveLength(8);
      const attempts = (await sb.admin('GET', '/deliveries')).body.items.filter((d: { keyName: string }) => d.keyName === 'other');
      expect(attempts.map((d: { attempt: number }) => d.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(attempts.every((d: { status: number; error: string }) => d.status === 500 && d.error.length > 0)).toBe(true);
      expect(new Set(receiver.received.map((d) => d.body)).size).toBe(1);
      expect(JSON.parse(receiver.received[0].body).data.id).toBe(link.id);
    } finally {
      await Promise.all([sb.close(), receiver.close()]);
    }
  });

  test('paused while API access is off, sent when it returns; a 2xx after a failure stops retries', async () => {
    const sb = await startSandbox();
    const receiver = await startReceiver(503);
    try {
      await sb.admin('PATCH', '/keys/other', { webhookUrl: receiver.url });
      await sb.admin('PATCH', '/settings', { apiAccess: false });
      const teamLink = await sb.admin('POST', '/links', { brandId: sb.sandbox.state.brands[0].id, fullName: 'Paused' });
      expect(teamLink.status).toBe(201);
      await new Promise((r) => setTimeout(r, 200));
      expect(receiver.received).toHaveLength(0);
      receiver.setStatus(204);
      await sb.admin('PATCH', '/settings', { apiAccess: true });
      await receiver.waitFor(1);
      expect(receiver.received).toHaveLength(1);
      expect(JSON.parse(receiver.received[0].body).data.id).toBe(teamLink.body.id);
      await sb.admin('POST', '/clock', { advanceSeconds: 3600 });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await Promise.all([sb.close(), receiver.close()]);
    }
  });

  test('POST /webhooks:test: the four outcomes; the ping is signed and never in the feed', async () => {
    const sb = await startSandbox();
    const receiver = await startReceiver(200);
    try {
      const none = await sb.api('POST', '/webhooks:test');
      expect(none.status).toBe(200);
      expect(none.body.responseStatus).toBeNull();
      expect(none.body.error).toMatch(/no webhook URL/);

      await sb.admin('PATCH', '/keys/full', { webhookUrl: receiver.url });
      const ok = await sb.api('POST', '/webhooks:test', { idempotencyKey: 'same' });
      expect(ok.body).toEqual({ responseStatus: 200, error: null });
      const again = await sb.api('POST', '/webhooks:test', { idempotencyKey: 'same' });
      expect(again.headers.get('idempotent-replayed')).toBeNull();
      expect(receiver.received).toHaveLength(2);
      const ping = JSON.parse(receiver.received[0].body);
      expect(Object.keys(ping)).toEqual(['id', 'type', 'occurredAt', 'environment', 'data']);
      expect(ping).toMatchObject({ type: 'ping', environment: 'production', data: {} });
      expect(verify(receiver.received[0], sb.secret('full'))).toBe(true);

      receiver.setStatus(418);
      const refused = await sb.api('POST', '/webhooks:test');
      expect(refused.body.responseStatus).toBe(418);
      expect(refused.body.error).toMatch(/418/);

      await receiver.close();
      const unreachable = await sb.api('POST', '/webhooks:test');
      expect(unreachable.body.responseStatus).toBeNull();
      expect(unreachable.body.error).toMatch(/reach/);

      const feed = await sb.api('GET', '/events?limit=100');
      expect(feed.body.items.some((e: { type: string }) => e.type === 'ping')).toBe(false);
      await sb.admin('POST', '/clock', { advanceSeconds: 86400 });
      expect(receiver.received).toHaveLength(3);
    } finally {
      await Promise.all([sb.close(), receiver.close()]);
    }
  });
});

describe('webhook time-outs', () => {
  test('a receiver that never answers fails after the 10 s response time-out', async () => {
    const hanging = http.createServer(() => undefined);
    const requested = new Promise<void>((resolve) => hanging.once('request', () => resolve()));
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const sb = await startSandbox();
    try {
      const { port } = hanging.address() as AddressInfo;
      await sb.admin('PATCH', '/keys/full', { webhookUrl: `http://127.0.0.1:${port}/hooks` });
      // The sandbox's time-out runs on fake timers: 10 s pass at once, and not a moment early.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      let settled = false;
      const pending = sb.api('POST', '/webhooks:test').finally(() => (settled = true));
      await requested;
      await vi.advanceTimersByTimeAsync(9_999);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const result = await pending;
      expect(result.body).toEqual({ responseStatus: null, error: `http://127.0.0.1:${port}/hooks did not respond within 10 s` });
    } finally {
      vi.useRealTimers();
      await sb.close();
      hanging.closeAllConnections();
      hanging.close();
    }
  });
});

describe('store phases', () => {
  test('a SCHEDULED store becomes LIVE at startsAt on the virtual clock and then takes orders', async () => {
    const sb = await startSandbox();
    try {
      const scheduled = (await sb.api('GET', '/reward-stores')).body.items.find((s: { phase: string }) => s.phase === 'SCHEDULED');
      const read = async () => (await sb.api('GET', `/reward-stores/${scheduled.id}?brandId=${scheduled.brandIds[0]}&country=DE`)).body;
      const gift = (await read()).sections[0].items[0];
      const body = {
        storeId: scheduled.id,
        brandId: scheduled.brandIds[0],
        productId: gift.productId,
        variations: {},
        coinPrice: gift.coinPrice,
        recipient: { name: 'N', phone: '+4915112345678', address: { street: 's', city: 'c', postalCode: '10115', country: 'DE' } },
      };
      const early = await sb.api('POST', '/reward-store-orders', { body, idempotencyKey: 'early' });
      expect([early.status, early.body.code]).toEqual([422, 'reward_store_not_live']);
      await sb.admin('POST', '/clock', { advanceSeconds: 8 * 86400 });
      expect((await read()).phase).toBe('LIVE');
      const placed = await sb.api('POST', '/reward-store-orders', { body, idempotencyKey: 'early' });
      expect(placed.status).toBe(201);
    } finally {
      await sb.close();
    }
  });
});
