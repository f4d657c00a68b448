/** Edges of the event feed: what it asks for, how long it waits through an outage, what it says, and when it is caught up. */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { feed, type FeedElement } from '../../src/features/events/feed.js';
import { UnavailableError } from '../../src/core/errors.js';

type Answer = { items: unknown[]; nextCursor: string | null } | Error;

/** GET only /events, each call taking the next answer; records path and query. */
function client(answers: Answer[]) {
  const calls: { path: string; query: unknown }[] = [];
  const api = {
    async request(_method: string, path: string, options: { query: unknown }) {
      calls.push({ path, query: options.query });
      const answer = answers.shift();
      if (answer === undefined) throw new Error('unexpected request');
      if (answer instanceof Error) throw answer;
      return { body: answer };
    },
  } as unknown as ApiClient;
  return { api, calls };
}

async function take(source: AsyncGenerator<FeedElement>, count: number): Promise<FeedElement[]> {
  const out: FeedElement[] = [];
  for await (const element of source) {
    out.push(element);
    if (out.length === count) break;
  }
  return out;
}

const signal = new AbortController().signal;

describe('feed', () => {
  it('asks GET /events with the cursor and the page size', async () => {
    const { api, calls } = client([{ items: [], nextCursor: null }]);
    await take(feed({ client: api, after: 'c0', limit: 7, follow: false, intervalMs: 0, signal, sleep: async () => undefined }), 5);
    expect(calls).toEqual([{ path: '/events', query: { after: 'c0', limit: 7 } }]);
  });

  it('waits longer after each failure, never more than 30 s, and says so once per outage', async () => {
    const waits: number[] = [];
    const { api, calls } = client([...Array.from({ length: 8 }, () => new UnavailableError('down')), { items: [], nextCursor: 'c' }]);
    // The wall clock moves only when the feed sleeps: the outage lasts exactly its waits.
    const clock = () => Date.parse('2026-11-21T03:04:05Z') + waits.reduce((sum, ms) => sum + ms, 0);
    const elements = await take(feed({ client: api, follow: true, intervalMs: 1000, signal, clock, sleep: async (ms) => void waits.push(ms) }), 3);
    expect(calls).toHaveLength(9);
    expect(waits).toHaveLength(8);
    for (let i = 1; i < 6; i++) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1] / 2);
    // From the seventh failure on, even the shortest jittered back-off is past the cap.
    expect(waits.slice(6, 8)).toEqual([30_000, 30_000]);
    expect(Math.max(...waits)).toBe(30_000);
    const down = Math.round(waits.reduce((sum, ms) => sum + ms, 0) / 1000);
    const back = new Date(clock()).toISOString().slice(11, 19);
    expect(elements).toEqual([
      { kind: 'status', level: 'warning', message: '03:04:05 UTC feed unavailable, retrying with backoff: down' },
      { kind: 'status', level: 'info', message: `${back} UTC feed reachable again after ${Math.floor(down / 60)}m ${down % 60}s (unavailable since 03:04:05 UTC)` },
      { kind: 'caught-up', cursor: 'c' },
    ]);
  });

  it('a page whose cursor does not move is the end of the catch-up, not a loop', async () => {
    const { api, calls } = client([
      { items: [{ id: 'e1' }], nextCursor: 'c1' },
      { items: [{ id: 'e2' }], nextCursor: 'c1' },
    ]);
    const elements = await take(feed({ client: api, follow: false, intervalMs: 0, signal, sleep: async () => undefined }), 10);
    expect(elements.map((e) => e.kind)).toEqual(['page', 'page', 'caught-up']);
    expect(calls).toHaveLength(2);
  });

  it('a page without a cursor keeps the one it had and ends the catch-up', async () => {
    const { api, calls } = client([{ items: [{ id: 'e1' }], nextCursor: null }]);
    const elements = await take(feed({ client: api, after: 'c9', follow: false, intervalMs: 0, signal, sleep: async () => undefined }), 10);
    expect(elements).toEqual([
      { kind: 'page', events: [{ event: { id: 'e1' }, raw: '{"id":"e1"}' }], cursor: 'c9' },
      { kind: 'caught-up', cursor: 'c9' },
    ]);
    expect(calls).toHaveLength(1);
  });
});
