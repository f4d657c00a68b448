import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { ApiError, InterruptedError, UnavailableError } from '../../src/core/errors.js';
import { verifySignature } from '../../src/core/signature.js';
import { feed, type FeedElement } from '../../src/features/events/feed.js';
import { Forwarder } from '../../src/features/events/forward.js';
import { RingBuffer, typeFilter } from '../../src/features/events/select.js';

describe('typeFilter', () => {
  it('shows everything without filters, unknown types included', () => {
    expect(typeFilter([])('something.new')).toBe(true);
    expect(typeFilter(undefined)(undefined)).toBe(true);
  });

  it('matches exact types, prefixes and bare groups', () => {
    const exact = typeFilter(['order.sent']);
    expect([exact('order.sent'), exact('order.sentx'), exact('order.cancelled')]).toEqual([true, false, false]);
    // A name also covers the types below it, the way `order` covers `order.sent`.
    expect(exact('order.sent.retry')).toBe(true);
    for (const prefix of ['order.', 'order.*', 'order']) {
      const shows = typeFilter([prefix]);
      expect([shows('order.sent'), shows('order.cancelled'), shows('orders.x'), shows('personal_link.created')]).toEqual([true, true, false, false]);
    }
    const both = typeFilter(['order.sent', 'personal_link.']);
    expect([both('order.sent'), both('personal_link.claimed'), both('order.approved')]).toEqual([true, true, false]);
  });
});

describe('RingBuffer', () => {
  it('keeps the last N in order', () => {
    const ring = new RingBuffer<number>(3);
    for (let i = 1; i <= 7; i++) ring.push(i);
    expect(ring.toArray()).toEqual([5, 6, 7]);
  });

  it('keeps fewer when fewer came, and none for N = 0', () => {
    const ring = new RingBuffer<number>(5);
    [1, 2].forEach((i) => ring.push(i));
    expect(ring.toArray()).toEqual([1, 2]);
    const none = new RingBuffer<number>(0);
    none.push(1);
    expect(none.toArray()).toEqual([]);
  });
});

/** A scripted GET /events: each call takes the next answer (a page or an error) and records its `after`. */
function scriptedClient(answers: ({ items: unknown[]; nextCursor: string | null } | Error)[]) {
  const afters: (string | undefined)[] = [];
  const client = {
    async request(_method: string, _path: string, options: { query: { after?: string } }) {
      afters.push(options.query.after);
      const answer = answers.shift();
      if (answer === undefined) throw new Error('unexpected request');
      if (answer instanceof Error) throw answer;
      return { body: answer };
    },
  } as unknown as ApiClient;
  return { client, afters };
}

const event = (n: number, type = 'order.sent') => ({ id: `e${n}`, type, occurredAt: '2026-11-21T10:00:00.000000Z', environment: 'production', data: {} });

async function collect(source: AsyncGenerator<FeedElement>, max = 50): Promise<FeedElement[]> {
  const out: FeedElement[] = [];
  for await (const element of source) {
    out.push(element);
    if (out.length >= max) break;
  }
  return out;
}

describe('feed', () => {
  const noSleep = async () => undefined;

  it('pages to the end, keeping the last cursor, then reports caught up', async () => {
    const { client, afters } = scriptedClient([
      { items: [event(1), event(2)], nextCursor: 'c2' },
      { items: [event(3)], nextCursor: 'c3' },
      { items: [], nextCursor: 'c3' },
    ]);
    const elements = await collect(feed({ client, follow: false, intervalMs: 0, signal: new AbortController().signal, sleep: noSleep }));
    expect(elements.map((e) => (e.kind === 'page' ? `${e.events.map((x) => x.event.id).join('+')}@${e.cursor}` : `${e.kind}@${'cursor' in e ? e.cursor : ''}`))).toEqual([
      'e1+e2@c2',
      'e3@c3',
      'caught-up@c3',
    ]);
    expect(afters).toEqual([undefined, 'c2', 'c3']);
  });

  it('keeps the raw item as received, unknown types included', async () => {
    const odd = { id: 'x', type: 'brand_new.thing', extra: { nested: [1, 2] } };
    const { client } = scriptedClient([{ items: [odd], nextCursor: 'c1' }, { items: [], nextCursor: 'c1' }]);
    const [page] = await collect(feed({ client, follow: false, intervalMs: 0, signal: new AbortController().signal, sleep: noSleep }));
    expect(page).toMatchObject({ kind: 'page', events: [{ raw: JSON.stringify(odd) }] });
  });

  it('starts after the given cursor; an empty feed stays without a cursor', async () => {
    const { client, afters } = scriptedClient([{ items: [], nextCursor: null }]);
    const elements = await collect(feed({ client, after: 'start', follow: false, intervalMs: 0, signal: new AbortController().signal, sleep: noSleep }));
    expect(afters).toEqual(['start']);
    expect(elements).toEqual([{ kind: 'caught-up', cursor: 'start' }]);
  });

  it('follows: polls after the interval and carries on through transient failures', async () => {
    const waits: number[] = [];
    const { client, afters } = scriptedClient([
      { items: [event(1)], nextCursor: 'c1' },
      { items: [], nextCursor: 'c1' },
      new UnavailableError('could not reach the service'),
      new ApiError({ status: 429, code: 'rate_limited' }, { retriesExhausted: true }),
      { items: [event(2)], nextCursor: 'c2' },
    ]);
    const elements = await collect(
      feed({ client, follow: true, intervalMs: 2000, signal: new AbortController().signal, sleep: async (ms) => void waits.push(ms) }),
      5,
    );
    // One line as the outage starts, however its cause changes (no connection, then 429), one as it ends.
    expect(elements.map((e) => e.kind)).toEqual(['page', 'caught-up', 'status', 'status', 'page']);
    expect(elements[2]).toMatchObject({ kind: 'status', message: expect.stringMatching(/^\d\d:\d\d:\d\d UTC feed unavailable, retrying with backoff: could not reach the service$/) });
    expect(elements[3]).toMatchObject({ kind: 'status', message: expect.stringMatching(/^\d\d:\d\d:\d\d UTC feed reachable again after \d+s \(unavailable since \d\d:\d\d:\d\d UTC\)$/) });
    expect(afters).toEqual([undefined, 'c1', 'c1', 'c1', 'c1']);
    expect(waits[0]).toBeGreaterThan(1900);
    expect(waits[0]).toBeLessThanOrEqual(2000);
    expect(waits.slice(1).every((ms) => ms > 0 && ms <= 30_000)).toBe(true);
  });

  // Found by bench/stress-follow.mjs: the interval was slept after each poll, so an event could wait
  // the interval plus the time the poll and the printing took.
  it('starts polls one interval apart, counting the time spent polling', async () => {
    for (const [intervalMs, wait] of [[1000, 700], [200, 0]]) {
      const waits: number[] = [];
      let clock = 0;
      const { client } = scriptedClient([{ items: [], nextCursor: 'c1' }, { items: [], nextCursor: 'c1' }]);
      // Each poll takes 300 ms of the clock.
      const slowClient = { request: (method: string, path: string, options: unknown) => ((clock += 300), client.request(method, path, options as never)) } as unknown as ApiClient;
      const sleep = async (ms: number) => void (waits.push(ms), (clock += ms));
      const source = feed({ client: slowClient, follow: true, intervalMs, signal: new AbortController().signal, sleep, now: () => clock });
      expect((await source.next()).value).toMatchObject({ kind: 'caught-up' });
      await expect(source.next()).rejects.toThrow('unexpected request');
      expect(waits).toEqual([wait, wait]);
    }
  });

  it('ends on a refusal even when following, and on transient failures when not', async () => {
    const refused = scriptedClient([new ApiError({ status: 401, code: 'invalid_api_key' })]);
    await expect(collect(feed({ client: refused.client, follow: true, intervalMs: 0, signal: new AbortController().signal, sleep: noSleep }))).rejects.toMatchObject({ code: 'invalid_api_key' });
    const down = scriptedClient([new UnavailableError('down')]);
    await expect(collect(feed({ client: down.client, follow: false, intervalMs: 0, signal: new AbortController().signal, sleep: noSleep }))).rejects.toBeInstanceOf(UnavailableError);
  });

  it('stops waiting when aborted', async () => {
    const controller = new AbortController();
    const { client } = scriptedClient([{ items: [], nextCursor: 'c' }]);
    const source = feed({ client, follow: true, intervalMs: 60_000, signal: controller.signal });
    expect((await source.next()).value).toMatchObject({ kind: 'caught-up' });
    setTimeout(() => controller.abort(), 10);
    await expect(source.next()).rejects.toBeInstanceOf(InterruptedError);
  });
});

describe('Forwarder', () => {
  const SECRET = 'f'.repeat(64);
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  async function receiver(statuses: number[]) {
    const received: { headers: IncomingMessage['headers']; body: string }[] = [];
    const server = createServer(async (request, response) => {
      let body = '';
      for await (const chunk of request) body += chunk;
      received.push({ headers: request.headers, body });
      response.writeHead(statuses.shift() ?? 200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => new Promise((resolve) => server.close(() => resolve()));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
  }

  it('posts the same bytes with webhook headers and a signature that verifies', async () => {
    const { url, received } = await receiver([204]);
    const raw = JSON.stringify(event(7));
    const forwarder = new Forwarder({ url, secret: SECRET, maxAttempts: 1, signal: new AbortController().signal });
    expect(await forwarder.forward({ event: event(7), raw })).toEqual({ ok: true, status: 204, attempts: 1 });
    await forwarder.close();
    expect(received[0].body).toBe(raw);
    expect(received[0].headers['content-type']).toBe('application/json');
    expect(received[0].headers['svc-event-id']).toBe('e7');
    const check = verifySignature({ header: String(received[0].headers['svc-signature']), payload: Buffer.from(raw), secret: SECRET, now: Math.floor(Date.now() / 1000) });
    expect(check.valid).toBe(true);
  });

  it('retries failures and reports the last one', async () => {
    const { url, received } = await receiver([500, 503, 502]);
    const retries: string[] = [];
    const forwarder = new Forwarder({ url, secret: SECRET, maxAttempts: 3, retryBaseMs: 1, signal: new AbortController().signal, onRetry: (line) => retries.push(line) });
    expect(await forwarder.forward({ event: event(1), raw: '{}' })).toEqual({ ok: false, status: 502, error: 'receiver answered 502', attempts: 3 });
    await forwarder.close();
    expect(received).toHaveLength(3);
    expect(retries).toHaveLength(2);
  });

  it('succeeds on a retry after a failure', async () => {
    const { url } = await receiver([500, 200]);
    const forwarder = new Forwarder({ url, secret: SECRET, maxAttempts: 4, retryBaseMs: 1, signal: new AbortController().signal });
    expect(await forwarder.forward({ event: event(1), raw: '{}' })).toEqual({ ok: true, status: 200, attempts: 2 });
    await forwarder.close();
  });

  it('reports an unreachable receiver', async () => {
    const forwarder = new Forwarder({ url: 'http://127.0.0.1:1/hook', secret: SECRET, maxAttempts: 1, signal: new AbortController().signal });
    expect(await forwarder.forward({ event: event(1), raw: '{}' })).toMatchObject({ ok: false, error: 'connection refused' });
    await forwarder.close();
  });
});
