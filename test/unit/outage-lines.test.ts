/**
 * Incident lines of the event feed a person can read at 3 a.m.: the time an outage starts, one line
 * however its cause changes, its length when it ends, no advice meant for writes on a read-only poll,
 * and a key renewed from the profile (a restarted sandbox) instead of ending on invalid_api_key.
 * The wall clock and the waits are virtual: nothing sleeps.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { ApiError, UnavailableError } from '../../src/core/errors.js';
import { clockTime, durationText, feed, readCause, type FeedElement } from '../../src/features/events/feed.js';
import { collect } from '../helpers/feed.js';

type Answer = { items: unknown[]; nextCursor: string | null } | Error;

/** A scripted GET /events per client (its last answer repeats); the clock moves only when the feed sleeps. */
function world() {
  let ms = Date.parse('2026-11-21T03:00:00Z');
  const calls: { key: string; after: unknown }[] = [];
  const client = (key: string, answers: Answer[]) =>
    ({
      async request(_method: string, _path: string, options: { query: { after?: string } }) {
        calls.push({ key, after: options.query.after });
        // The last answer repeats.
        const answer = answers.length > 1 ? answers.shift() : answers[0];
        if (answer === undefined) throw new Error('unexpected request');
        if (answer instanceof Error) throw answer;
        return { body: answer };
      },
    }) as unknown as ApiClient;
  const sleep = async (wait: number) => void (ms += wait);
  return { client, calls, sleep, clock: () => ms, now: () => ms };
}

const messages = (out: FeedElement[]) => out.flatMap((element) => (element.kind === 'status' ? [element.message] : []));
const signal = new AbortController().signal;
const injected = new ApiError({ status: 500, code: 'internal_error', detail: 'An injected server error; retry with the same Idempotency-Key.' });

describe('outage lines', () => {
  it('one line with the time as it starts, whatever the causes; one with the time and the length as it ends', async () => {
    const w = world();
    const gateway = new ApiError({ status: 502, code: 'http_502', detail: 'HTTP 502 with a non-JSON body' });
    const api = w.client('k', [{ items: [], nextCursor: 'c' }, new UnavailableError('could not reach 127.0.0.1: connection reset'), gateway, injected, new ApiError({ status: 429, code: 'rate_limited', detail: 'slow down' }), { items: [], nextCursor: 'c' }]);
    const { out } = await collect(feed({ client: api, follow: true, intervalMs: 2000, signal, sleep: w.sleep, clock: w.clock, now: w.now }), 3);
    const [start, end] = messages(out);
    expect(start).toBe('03:00:02 UTC feed unavailable, retrying with backoff: could not reach 127.0.0.1: connection reset');
    const downMs = w.clock() - Date.parse('2026-11-21T03:00:02Z');
    expect(end).toBe(`${clockTime(w.clock())} feed reachable again after ${durationText(downMs)} (unavailable since 03:00:02 UTC)`);
    expect(messages(out)).toHaveLength(2);
  });

  it('a read-only poll never quotes the advice a write gets (retry with the same Idempotency-Key)', async () => {
    const w = world();
    const api = w.client('k', [{ items: [], nextCursor: 'c' }, injected]);
    const { out, error } = await collect(feed({ client: api, follow: true, intervalMs: 1000, giveUpAfterMs: 5_000, signal, sleep: w.sleep, clock: w.clock, now: w.now }), 5);
    expect(messages(out)).toEqual(['03:00:01 UTC feed unavailable, retrying with backoff (giving up after 5s without success): An injected server error']);
    expect((error as Error).message).toBe('no poll of the event feed succeeded for 5s (last: An injected server error); giving up as --give-up-after asks');
  });

  it('readCause leaves out only the clauses about idempotency keys', () => {
    expect(readCause(injected)).toBe('An injected server error');
    expect(readCause(new UnavailableError('no response within 30s from GET http://127.0.0.1:4010/v1/events'))).toBe('no response within 30s from GET http://127.0.0.1:4010/v1/events');
    expect(readCause(new Error('Use the same Idempotency-Key.'))).toBe('Use the same Idempotency-Key.');
  });

  it('durations read as people say them', () => {
    expect([0, 45_000, 148_000, 3_780_000].map(durationText)).toEqual(['0s', '45s', '2m 28s', '1h 3m']);
  });
});

describe('a key changed on disk under --follow', () => {
  const refused = () => new ApiError({ status: 401, code: 'invalid_api_key', detail: 'The API key is not valid.' });
  const cursorRefused = () => new ApiError({ status: 400, code: 'invalid_request', detail: 'bad cursor', errors: [{ field: 'after', code: 'invalid', message: 'not a cursor of this run' }] });

  it('is taken, said so, and the new feed is read from its oldest event when it does not know the old cursor', async () => {
    const w = world();
    const old = w.client('old', [{ items: [{ id: 'e1' }], nextCursor: 'c1' }, { items: [], nextCursor: 'c1' }, refused()]);
    const fresh = w.client('new', [cursorRefused(), { items: [{ id: 'n1' }], nextCursor: 'd1' }]);
    let renewals = 0;
    const renewKey = async () => (renewals++ === 0 ? { client: fresh, message: 'the API key of profile sandbox changed on disk (a restarted sandbox?); going on with the new one' } : undefined);
    const { out } = await collect(feed({ client: old, follow: true, intervalMs: 1000, signal, sleep: w.sleep, clock: w.clock, now: w.now, renewKey }), 5);
    expect(out.map((element) => (element.kind === 'status' ? element.message : element.kind === 'page' ? `page ${element.events.map((e) => e.raw).join()} ${element.cursor}` : element.kind))).toEqual([
      'page {"id":"e1"} c1',
      'caught-up',
      '03:00:01 UTC the API key of profile sandbox changed on disk (a restarted sandbox?); going on with the new one',
      '03:00:01 UTC the feed does not know the cursor of the old key (a restarted sandbox?); reading its events from the oldest',
      'page {"id":"n1"} d1',
    ]);
    expect(w.calls).toEqual([
      { key: 'old', after: undefined },
      { key: 'old', after: 'c1' },
      { key: 'old', after: 'c1' },
      { key: 'new', after: 'c1' },
      { key: 'new', after: undefined },
    ]);
  });

  it('refused right after an outage, before the restarted sandbox saved its key: asked again until it has', async () => {
    const w = world();
    const old = w.client('old', [{ items: [], nextCursor: 'c' }, new UnavailableError('could not reach 127.0.0.1: connection refused'), refused()]);
    const fresh = w.client('new', [{ items: [], nextCursor: 'd' }]);
    let asked = 0;
    const renewKey = async () => (++asked < 3 ? undefined : { client: fresh, message: 'the API key of profile sandbox changed on disk (a restarted sandbox?); going on with the new one' });
    const { out, error } = await collect(feed({ client: old, follow: true, intervalMs: 1000, signal, sleep: w.sleep, clock: w.clock, now: w.now, renewKey }), 4);
    expect(error).toBeUndefined();
    expect(asked).toBe(3);
    expect(messages(out).map((line) => line.slice(13))).toEqual([
      'feed unavailable, retrying with backoff: could not reach 127.0.0.1: connection refused',
      'the API key of profile sandbox changed on disk (a restarted sandbox?); going on with the new one',
      expect.stringMatching(/^feed reachable again after \d+s \(unavailable since 03:00:01 UTC\)$/),
    ]);
  });

  it('a key that did not change: the refusal ends the feed as before', async () => {
    const w = world();
    const api = w.client('k', [{ items: [], nextCursor: 'c' }, refused()]);
    const { out, error } = await collect(feed({ client: api, follow: true, intervalMs: 1000, signal, sleep: w.sleep, clock: w.clock, now: w.now, renewKey: async () => undefined }), 5);
    expect(out.map((element) => element.kind)).toEqual(['caught-up']);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });
});
