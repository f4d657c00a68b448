/** Pieces of `events tail` and `inspect`: lines that fit, filters, liveness of the feed, bounded forwarding. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Chalk } from 'chalk';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { SvcEvent } from '../../src/api/types.js';
import { feed } from '../../src/features/events/feed.js';
import { collect } from '../helpers/feed.js';
import { Forwarder, forwardNote, forwardUrl } from '../../src/features/events/forward.js';
import { EventRenderer, eventLayout, fit } from '../../src/features/events/render.js';
import { eventFilter } from '../../src/features/events/select.js';
import { ApiError, UnavailableError } from '../../src/core/errors.js';
import { IO } from '../../src/core/io.js';
import { testTerminal } from '../helpers/terminal.js';
import { Output } from '../../src/core/output.js';

const LINK = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';
const ORDER = '3f1f5b0c-2d11-4c8e-9a59-0b7c2f0e1d8e';
const BRAND = '6cf764cf-ca59-43c5-b0e6-58c6862c38f0';

const linkEvent = (type: string, occurredAt: string, data: Record<string, unknown> = {}): SvcEvent => ({
  id: `e-${type}-${occurredAt}`,
  type,
  occurredAt,
  environment: 'production',
  data: { id: LINK, brandId: BRAND, campaignId: 'c1', status: 'ACTIVE', ...data },
});

function terminal(columns: number) {
  const screen = testTerminal({ tty: { stdout: true }, columns });
  return { output: new Output(new IO(screen.streams), 'table', Chalk), text: async () => (await screen.settled(), screen.stdout) };
}

describe('event lines', () => {
  const order: SvcEvent = {
    id: 'e1',
    type: 'personal_link.cancelled',
    occurredAt: '2026-11-21T10:00:00.123456Z',
    environment: 'production',
    data: { id: ORDER, status: 'PROCESSING' },
  };

  it('keep the time of day, the whole type and the record\'s whole id at 80 columns (the status shrinks); narrower, the date and no id; a wide terminal shows everything', async () => {
    const narrow = terminal(80);
    const renderer = new EventRenderer(narrow.output);
    await renderer.begin();
    await renderer.event(JSON.stringify(order), order);
    expect((await narrow.text()).split('\n')).toEqual([`${'Time'.padEnd(8)}  ${'Type'.padEnd(23)}  ${'ID'.padEnd(36)}  Status`, `10:00:00  personal_link.cancelled  ${ORDER}  PROCES…`, '']);
    const narrower = terminal(78);
    const before = new EventRenderer(narrower.output);
    await before.begin();
    await before.event(JSON.stringify(order), order);
    expect((await narrower.text()).split('\n')).toEqual([
      `${'Time'.padEnd(20)}  ${'Type'.padEnd(23)}  ${'Status'.padEnd(10)}  Details`,
      '2026-11-21T10:00:00Z  personal_link.cancelled  PROCESSING',
      '',
    ]);
    // The record's id comes in where it fits whole.
    const middle = terminal(100);
    await new EventRenderer(middle.output).event(JSON.stringify(order), order);
    expect(await middle.text()).toBe(`2026-11-21T10:00:00Z  personal_link.cancelled  ${ORDER}  PROCESSING\n`);
    const wide = terminal(200);
    const full = new EventRenderer(wide.output);
    await full.event(JSON.stringify(order), { ...order, type: 'order.sent', data: { ...order.data, coinPrice: '1100', currency: { symbol: '★' }, reference: 'R-1' } });
    expect(await wide.text()).toBe(`2026-11-21T10:00:00.123456Z  order.sent               ${ORDER}  PROCESSING  1100 ★  R-1\n`);
  });

  it('show hostile text visibly and measure wide characters as two columns', async () => {
    // 130 columns: the id fits whole beside the time to the second, the type, the status and room for the forwarding result.
    const { output, text } = terminal(130);
    const renderer = new EventRenderer(output, { notes: true });
    const hostile = { ...order, type: 'order.\x07sent', data: { id: ORDER, status: '\u009b2J', reference: '\x1b]8;;http://evil\x07注文注文注文注文注文注文注文注文', coinPrice: '1' } };
    await renderer.event(JSON.stringify(hostile), hostile as SvcEvent, '→ 404 (refused, not retried)');
    const line = (await text()).trimEnd();
    expect(line).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(line).toContain(ORDER);
    expect(line).toContain('→ 404');
    expect(stringWidth(line)).toBeLessThanOrEqual(130);
    // With room, the escapes are shown as text.
    const wide = terminal(200);
    await new EventRenderer(wide.output).event(JSON.stringify(hostile), hostile as SvcEvent);
    expect(await wide.text()).toBe(`${hostile.occurredAt}  order.\\x07sent           ${ORDER}  \\u009b2J    1  \\x1b]8;;http://evil\\x07注文注文注文注文注文注文注文注文\n`);
  });

  it('give way in order: the date first (below 95), then the id (below 79), then the time\'s decimals; type and status always', () => {
    expect(eventLayout(78)).toEqual({ fullTime: false, clock: false, id: false });
    expect(eventLayout(79)).toEqual({ fullTime: false, clock: true, id: true });
    expect(eventLayout(80)).toEqual({ fullTime: false, clock: true, id: true });
    expect(eventLayout(94)).toEqual({ fullTime: false, clock: true, id: true });
    expect(eventLayout(95)).toEqual({ fullTime: false, clock: false, id: true });
    expect(eventLayout(125)).toEqual({ fullTime: false, clock: false, id: true });
    expect(eventLayout(126)).toEqual({ fullTime: true, clock: false, id: true });
    expect(eventLayout(Infinity)).toEqual({ fullTime: true, clock: false, id: true });
    expect([fit('abcdef', 4), fit('abc', 3), fit('注文注文', 5), fit('abc', 0)]).toEqual(['abc…', 'abc', '注文…', '']);
  });

  it('never draw a line wider than a very narrow terminal', async () => {
    for (const columns of [20, 40, 56]) {
      const { output, text } = terminal(columns);
      const renderer = new EventRenderer(output);
      await renderer.begin();
      await renderer.event(JSON.stringify(order), { ...order, type: 'order.cancelled', data: { ...order.data, coinPrice: '12', reference: 'R-99' } });
      for (const line of (await text()).trimEnd().split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
    }
  });
});

describe('eventFilter', () => {
  const events = [
    linkEvent('personal_link.created', '2026-11-21T10:00:00.000000Z'),
    linkEvent('personal_link.claimed', '2026-11-21T12:00:00.000001Z', { brandId: 'other' }),
    { ...linkEvent('order.sent', '2026-11-21T11:00:00.000000Z'), data: { id: ORDER, brandId: BRAND } },
  ];
  const ids = (filters: Parameters<typeof eventFilter>[0]) => events.filter(eventFilter(filters)).map((event) => `${event.type}`);

  it('combines the record, brand, campaign, time and type filters', () => {
    expect(ids({})).toEqual(['personal_link.created', 'personal_link.claimed', 'order.sent']);
    expect(ids({ linkId: LINK.toUpperCase() })).toEqual(['personal_link.created', 'personal_link.claimed']);
    expect(ids({ orderId: ORDER })).toEqual(['order.sent']);
    expect(ids({ linkId: LINK, orderId: ORDER, brandId: BRAND })).toEqual(['personal_link.created', 'order.sent']);
    expect(ids({ campaignId: 'c1' })).toEqual(['personal_link.created', 'personal_link.claimed']);
    expect(ids({ sinceMicros: Date.parse('2026-11-21T12:00:00Z') * 1000 + 1 })).toEqual(['personal_link.claimed']);
    expect(ids({ types: ['personal_link.'], sinceMicros: Date.parse('2026-11-21T10:30:00Z') * 1000 })).toEqual(['personal_link.claimed']);
  });
});

describe('feed liveness', () => {
  /** GET /events answered from a script; a clock that moves only when the feed sleeps. */
  function outage(answers: (unknown | Error)[]) {
    let clock = 0;
    const retries: (boolean | undefined)[] = [];
    const client = {
      async request(_method: string, _path: string, options: { retry?: boolean }) {
        retries.push(options.retry);
        const answer = answers.length > 1 ? answers.shift() : answers[0];
        if (answer instanceof Error) throw answer;
        return { body: answer };
      },
    } as unknown as ApiClient;
    const waits: number[] = [];
    const sleep = async (ms: number) => void (waits.push(ms), (clock += ms));
    return { client, waits, retries, sleep, now: () => clock };
  }

  it('one status line for an outage, however many polls fail, and one when it ends', async () => {
    const down = new UnavailableError('connection refused');
    const script = outage([{ items: [], nextCursor: 'c' }, down, down, down, down, down, { items: [], nextCursor: 'c' }]);
    const clock = () => Date.parse('2026-11-21T03:00:00Z') + script.now();
    const { out } = await collect(feed({ ...script, clock, follow: true, intervalMs: 1000, signal: new AbortController().signal }), 3);
    // Down from the first failed poll (1 s after the catch-up) to the poll that succeeded: the failures' waits.
    const downSeconds = Math.round(script.waits.slice(1, 6).reduce((sum, ms) => sum + ms, 0) / 1000);
    expect(out).toEqual([
      { kind: 'caught-up', cursor: 'c' },
      { kind: 'status', level: 'warning', message: '03:00:01 UTC feed unavailable, retrying with backoff: connection refused' },
      { kind: 'status', level: 'info', message: `${new Date(clock()).toISOString().slice(11, 19)} UTC feed reachable again after ${downSeconds}s (unavailable since 03:00:01 UTC)` },
    ]);
    // Each poll is one request (the feed is the retry loop), and the waits grow.
    expect(script.retries.every((retry) => retry === false)).toBe(true);
    const failureWaits = script.waits.slice(1, 6);
    expect(failureWaits.every((ms, i) => i === 0 || ms > failureWaits[i - 1] * 1.1)).toBe(true);
  });

  it('--give-up-after: the last error once no poll has succeeded for that long, right on time', async () => {
    const script = outage([{ items: [], nextCursor: 'c' }, new ApiError({ status: 503, code: 'unavailable', detail: 'down' })]);
    const { out, error } = await collect(feed({ ...script, follow: true, intervalMs: 1000, giveUpAfterMs: 10_000, signal: new AbortController().signal }), 10);
    expect(out.map((element) => element.kind)).toEqual(['caught-up', 'status']);
    expect(out[1]).toMatchObject({ message: expect.stringMatching(/^\d\d:\d\d:\d\d UTC feed unavailable, retrying with backoff \(giving up after 10s without success\): down$/) });
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as UnavailableError).exitCode).toBe(5);
    expect((error as Error).message).toBe('no poll of the event feed succeeded for 10s (last: down); giving up as --give-up-after asks');
    // The last success was at 0 s: the verdict comes at 10 s, not at the end of a longer backoff.
    expect(script.now()).toBe(10_000);
  });

  it('a refusal still ends the feed at once', async () => {
    const script = outage([new ApiError({ status: 401, code: 'invalid_api_key' })]);
    const { error } = await collect(feed({ ...script, follow: true, intervalMs: 1000, giveUpAfterMs: 60_000, signal: new AbortController().signal }), 5);
    expect(error).toMatchObject({ code: 'invalid_api_key' });
  });
});

describe('--forward-to', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  async function receiver(statuses: number[]) {
    const received: string[] = [];
    const server = createServer(async (request, response) => {
      for await (const chunk of request) void chunk;
      received.push(String(request.headers['svc-event-id']));
      response.writeHead(statuses.length > 1 ? statuses.shift()! : statuses[0]).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => new Promise((resolve) => server.close(() => resolve()));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
  }
  const item = (id: string) => ({ event: { ...linkEvent('personal_link.created', '2026-11-21T10:00:00.000000Z'), id }, raw: '{}' });

  it('a 4xx is shown and not retried', async () => {
    const { url, received } = await receiver([404]);
    const forwarder = new Forwarder({ url, secret: 'f'.repeat(64), maxAttempts: 4, retryBaseMs: 1, signal: new AbortController().signal });
    const result = await forwarder.forward(item('a'));
    await forwarder.close();
    expect(result).toEqual({ ok: false, status: 404, error: 'receiver answered 404', attempts: 1, refused: true });
    expect(forwardNote(result)).toBe('→ 404 (refused, not retried)');
    expect(received).toEqual(['a']);
  });

  it('5xx is retried a bounded number of times; while the receiver stays down later events get one try', async () => {
    const { url, received } = await receiver([500, 500, 500, 500, 502, 200, 200]);
    const forwarder = new Forwarder({ url, secret: 'f'.repeat(64), maxAttempts: 4, retryBaseMs: 1, signal: new AbortController().signal });
    const first = await forwarder.forward(item('a'));
    const second = await forwarder.forward(item('b'));
    const third = await forwarder.forward(item('c'));
    const fourth = await forwarder.forward(item('d'));
    await forwarder.close();
    expect(forwardNote(first)).toBe('→ not delivered after 4 attempts: receiver answered 500');
    expect(forwardNote(second)).toBe('→ not delivered after 1 attempt: receiver answered 502');
    expect([third, fourth].map(forwardNote)).toEqual(['→ 200', '→ 200']);
    expect(received).toEqual(['a', 'a', 'a', 'a', 'b', 'c', 'd']);
  });

  it('plain http only to a loopback host, refused from the text alone', () => {
    expect(forwardUrl('http://127.0.0.1:4242/hooks')).toBe('http://127.0.0.1:4242/hooks');
    expect(forwardUrl('http://localhost/h')).toBe('http://localhost/h');
    expect(forwardUrl('http://[::1]:3000/h')).toBe('http://[::1]:3000/h');
    expect(forwardUrl('https://hooks.example.test/h')).toBe('https://hooks.example.test/h');
    for (const url of ['http://169.254.169.254/latest', 'http://10.0.0.1/h', 'http://example.test/h', 'http://127.0.0.1.nip.io/h']) {
      expect(() => forwardUrl(url), url).toThrow(/^--forward-to: plain http:\/\/ only to a loopback host/);
    }
    expect(() => forwardUrl('ftp://127.0.0.1/x')).toThrow('--forward-to: must be an https:// URL (or http:// to a loopback host), got ftp:');
    expect(() => forwardUrl('https://user:pw@hooks.example.test/h')).toThrow('--forward-to: must not carry a user name or password');
  });
});
