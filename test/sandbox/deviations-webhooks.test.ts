/**
 * Webhook retries follow the key as it is at each attempt (routing rules 1–3): a key that lost
 * REWARD_STORES gets no more order events, a key that lost a brand none of that brand's events, and a
 * revoked key or a key without a webhook URL nothing more.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type TestSandbox, startReceiver, startSandbox } from './helpers.js';
import { placeOrders } from '../helpers/orders.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

let sb: TestSandbox;
let receiver: Receiver;
beforeEach(async () => {
  sb = await startSandbox();
  receiver = await startReceiver(500);
  expect((await sb.admin('PATCH', '/keys/full', { webhookUrl: receiver.url })).status).toBe(200);
});
afterEach(async () => {
  await Promise.all([sb.close(), receiver.close()]);
});

interface Attempt {
  eventId: string;
  type: string;
  attempt: number;
}

/** The attempts made to key `full`, in order, as the admin API lists them. */
async function attemptsToFull(): Promise<Attempt[]> {
  const items: { eventId: string; type: string; keyName: string; attempt: number }[] = (await sb.admin('GET', '/deliveries')).body.items;
  return items.filter((d) => d.keyName === 'full').map(({ eventId, type, attempt }) => ({ eventId, type, attempt }));
}

/**
 * Waits until `count` first attempts to `full` have been recorded (they run at once, in the
 * background, and are recorded as they finish: one is awaited before the next event is made).
 */
async function firstAttempts(count: number): Promise<Attempt[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const attempts = await attemptsToFull();
    if (attempts.length >= count || Date.now() > deadline) return attempts;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function eventIdOf(type: string, dataId: string): Promise<string> {
  const feed: { id: string; type: string; data: { id: string } }[] = (await sb.api('GET', '/events?limit=100')).body.items;
  const event = feed.find((e) => e.type === type && e.data.id === dataId);
  if (event === undefined) throw new Error(`no ${type} event for ${dataId}`);
  return event.id;
}

/** A link made by the team (so every key with the brand and scope is sent its event). */
async function teamLink(brandId: string): Promise<string> {
  const reply = await sb.admin('POST', '/links', { brandId, fullName: 'Team Made' });
  expect(reply.status).toBe(201);
  return reply.body.id;
}

/** An order placed by key `full`, then shipped by the team: one order.sent event for `full`. */
async function shippedOrder(): Promise<string> {
  const [order] = await placeOrders(sb, 1);
  expect((await sb.admin('POST', `/orders/${order.id}/ship`, {})).status).toBe(200);
  return order.id;
}

const advance = async (seconds: number): Promise<void> => {
  expect((await sb.admin('POST', '/clock', { advanceSeconds: seconds })).status).toBe(200);
};

describe('each retry re-checks the key as it is now', () => {
  test('a key that lost REWARD_STORES gets no more retries of order events; its link events still retry', async () => {
    const orderId = await shippedOrder();
    await firstAttempts(1);
    const linkId = await teamLink(sb.sandbox.state.brands[0].id);
    const orderEvent = await eventIdOf('order.sent', orderId);
    const linkEvent = await eventIdOf('personal_link.created', linkId);
    expect(await firstAttempts(2)).toEqual([
      { eventId: orderEvent, type: 'order.sent', attempt: 1 },
      { eventId: linkEvent, type: 'personal_link.created', attempt: 1 },
    ]);

    expect((await sb.admin('PATCH', '/keys/full', { scopes: ['PERSONAL_LINKS'] })).status).toBe(200);
    await advance(60);
    await advance(300);
    expect(await attemptsToFull()).toEqual([
      { eventId: orderEvent, type: 'order.sent', attempt: 1 },
      { eventId: linkEvent, type: 'personal_link.created', attempt: 1 },
      { eventId: linkEvent, type: 'personal_link.created', attempt: 2 },
      { eventId: linkEvent, type: 'personal_link.created', attempt: 3 },
    ]);
    // Given back, the scope does not revive the dropped delivery.
    expect((await sb.admin('PATCH', '/keys/full', { scopes: ['PERSONAL_LINKS', 'REWARD_STORES'] })).status).toBe(200);
    await advance(1800);
    expect((await attemptsToFull()).filter((a) => a.eventId === orderEvent)).toEqual([{ eventId: orderEvent, type: 'order.sent', attempt: 1 }]);
  });

  test('a key that lost PERSONAL_LINKS gets no more retries of link events; its order events still retry', async () => {
    const linkId = await teamLink(sb.sandbox.state.brands[0].id);
    const linkEvent = await eventIdOf('personal_link.created', linkId);
    await firstAttempts(1);
    const orderId = await shippedOrder();
    const orderEvent = await eventIdOf('order.sent', orderId);
    await firstAttempts(2);

    expect((await sb.admin('PATCH', '/keys/full', { scopes: ['REWARD_STORES'] })).status).toBe(200);
    await advance(60);
    expect(await attemptsToFull()).toEqual([
      { eventId: linkEvent, type: 'personal_link.created', attempt: 1 },
      { eventId: orderEvent, type: 'order.sent', attempt: 1 },
      { eventId: orderEvent, type: 'order.sent', attempt: 2 },
    ]);
  });

  test('a key that lost a brand gets no more retries of that brand\'s events; other brands still retry', async () => {
    const [kept, lost] = sb.sandbox.state.brands;
    const keptLink = await teamLink(kept.id);
    await firstAttempts(1);
    const lostLink = await teamLink(lost.id);
    const keptEvent = await eventIdOf('personal_link.created', keptLink);
    const lostEvent = await eventIdOf('personal_link.created', lostLink);
    expect(await firstAttempts(2)).toEqual([
      { eventId: keptEvent, type: 'personal_link.created', attempt: 1 },
      { eventId: lostEvent, type: 'personal_link.created', attempt: 1 },
    ]);

    expect((await sb.admin('PATCH', '/keys/full', { brandIds: [kept.id] })).status).toBe(200);
    await advance(60);
    expect(await attemptsToFull()).toEqual([
      { eventId: keptEvent, type: 'personal_link.created', attempt: 1 },
      { eventId: lostEvent, type: 'personal_link.created', attempt: 1 },
      { eventId: keptEvent, type: 'personal_link.created', attempt: 2 },
    ]);
  });

  test('a revoked key gets no more retries', async () => {
    const linkId = await teamLink(sb.sandbox.state.brands[0].id);
    const linkEvent = await eventIdOf('personal_link.created', linkId);
    await firstAttempts(1);
    expect((await sb.admin('PATCH', '/keys/full', { revoked: true })).status).toBe(200);
    await advance(60);
    expect((await sb.admin('PATCH', '/keys/full', { revoked: false })).status).toBe(200);
    await advance(300);
    expect(await attemptsToFull()).toEqual([{ eventId: linkEvent, type: 'personal_link.created', attempt: 1 }]);
    expect(receiver.received).toHaveLength(1);
  });

  test('a key whose webhook URL was removed gets no more retries', async () => {
    const linkId = await teamLink(sb.sandbox.state.brands[0].id);
    const linkEvent = await eventIdOf('personal_link.created', linkId);
    await firstAttempts(1);
    expect((await sb.admin('PATCH', '/keys/full', { webhookUrl: null })).status).toBe(200);
    await advance(60);
    expect((await sb.admin('PATCH', '/keys/full', { webhookUrl: receiver.url })).status).toBe(200);
    await advance(300);
    expect(await attemptsToFull()).toEqual([{ eventId: linkEvent, type: 'personal_link.created', attempt: 1 }]);
    expect(receiver.received).toHaveLength(1);
  });
});
