/**
 * The rate limits over HTTP, as the spec writes them: no more than N requests of one key succeed
 * within any 60 s, and image addresses 600 a minute per client address, apart from the keys' limit.
 * The limiter runs on real time; here its clock is injected, so no test sleeps.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { type TestSandbox, startSandbox } from './helpers.js';

let sb: TestSandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

const clock = { ms: 0 };

async function start(rateLimitPerMinute: number): Promise<TestSandbox> {
  clock.ms = 5_000_000;
  sb = await startSandbox({ rateLimitPerMinute, rateLimitClock: () => clock.ms });
  return sb;
}

async function burst(count: number, call: () => Promise<{ status: number; headers: Headers }>): Promise<{ statuses: number[]; retryAfter: (string | null)[] }> {
  const replies = await Promise.all(Array.from({ length: count }, call));
  return { statuses: replies.map((r) => r.status).sort(), retryAfter: [...new Set(replies.filter((r) => r.status === 429).map((r) => r.headers.get('retry-after')))] };
}

const times = (n: number, status: number): number[] => Array.from({ length: n }, () => status);

describe('per-key limit: N a minute in any 60 s', () => {
  test('a burst of N+k gets exactly N; half a minute later still none; a minute after the burst, N again', async () => {
    const box = await start(10);
    const call = () => box.api('GET', '/me');
    expect(await burst(15, call)).toEqual({ statuses: [...times(10, 200), ...times(5, 429)], retryAfter: ['60'] });

    clock.ms += 30_000;
    // A bucket refilled at N a minute would let 5 more through here; the minute is not over.
    expect(await burst(6, call)).toEqual({ statuses: times(6, 429), retryAfter: ['30'] });
    const limited = await call();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('application/problem+json');
    expect((limited as { body: unknown }).body).toEqual({
      type: expect.any(String),
      title: 'Too many requests',
      status: 429,
      code: 'rate_limited',
      detail: 'More than 10 requests a minute; retry after 30 s.',
    });

    clock.ms += 29_000;
    expect((await call()).headers.get('retry-after')).toBe('1');
    clock.ms += 1_000;
    expect(await burst(12, call)).toEqual({ statuses: [...times(10, 200), ...times(2, 429)], retryAfter: ['60'] });
  });

  test('each key has its own minute', async () => {
    const box = await start(3);
    expect(await burst(4, () => box.api('GET', '/me'))).toEqual({ statuses: [200, 200, 200, 429], retryAfter: ['60'] });
    expect(await burst(4, () => box.api('GET', '/me', { as: 'other' }))).toEqual({ statuses: [200, 200, 200, 429], retryAfter: ['60'] });
  });
});

describe('image addresses: 600 a minute per client address, apart from the keys', () => {
  test('exactly 600 in a minute; the keys\' limit is untouched; half a minute later still none', async () => {
    const box = await start(5);
    const store = (await box.api('GET', '/reward-stores')).body.items.find((s: { phase: string }) => s.phase === 'LIVE');
    const read = (await box.api('GET', `/reward-stores/${store.id}?brandId=${store.brandIds[0]}&country=DE`)).body;
    const url: string = read.sections.flatMap((s: { items: { thumbnail: { url: string } | null }[] }) => s.items).find((g: { thumbnail: unknown }) => g.thumbnail !== null).thumbnail.url;
    const image = async () => {
      const res = await fetch(url);
      await res.arrayBuffer();
      return res;
    };
    const statuses: number[] = [];
    for (let round = 0; round < 13; round++) statuses.push(...(await burst(50, image)).statuses);
    expect(statuses.filter((s) => s === 200)).toHaveLength(600);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50);
    // The key made 2 calls above: 3 are left, images took none of them.
    expect(await burst(4, () => box.api('GET', '/me'))).toEqual({ statuses: [200, 200, 200, 429], retryAfter: ['60'] });

    clock.ms += 30_000;
    expect(await burst(20, image)).toEqual({ statuses: times(20, 429), retryAfter: ['30'] });
    clock.ms += 30_000;
    expect((await image()).status).toBe(200);
  });
});
