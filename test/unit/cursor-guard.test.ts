/** The cursor guard every walk keeps: loops of any length are caught, with bounded memory. */
import { describe, expect, it } from 'vitest';
import { readPage } from '../../src/api/paginate.js';
import type { SvcError } from '../../src/core/errors.js';
import { CursorGuard, CursorLoopError, pageIdentity } from '../../src/api/cursor-guard.js';

/** Follows `cursors` in order; returns how many were followed before the guard stopped the walk. */
function walk(guard: CursorGuard, cursors: Iterable<string>): { followed: number; error?: CursorLoopError } {
  let followed = 0;
  try {
    for (const cursor of cursors) {
      guard.follow(cursor);
      followed++;
    }
  } catch (error) {
    return { followed, error: error as CursorLoopError };
  }
  return { followed };
}

function* cycle(prefix: number, length: number, total: number): Generator<string> {
  for (let i = 0; i < total; i++) yield i < prefix ? `p${i}` : `c${(i - prefix) % length}`;
}

describe('cursor guard', () => {
  it('A→B→A is a loop at the repeat; the starting cursor counts as followed', () => {
    expect(walk(new CursorGuard('GET /x'), ['A', 'B', 'A']).followed).toBe(2);
    const started = walk(new CursorGuard('GET /x', 'S'), ['A', 'S']);
    expect(started.followed).toBe(1);
    expect(started.error).toBeInstanceOf(CursorLoopError);
    expect(started.error?.code).toBe('cursor_loop');
  });

  it('a loop longer than what is remembered exactly is still caught, within three times its length and lead-in', () => {
    for (const [prefix, length] of [
      [3, 25_000],
      [40_000, 12_345],
    ]) {
      const { followed, error } = walk(new CursorGuard('GET /x'), cycle(prefix, length, prefix + 4 * length));
      expect(error).toBeInstanceOf(CursorLoopError);
      expect(followed).toBeGreaterThanOrEqual(prefix + length);
      expect(followed).toBeLessThanOrEqual(3 * (prefix + length));
    }
  });

  it('a long walk without repeats goes on, and memory does not grow with it', () => {
    const guard = new CursorGuard('GET /x');
    expect(walk(guard, (function* () {
      for (let i = 0; i < 200_000; i++) yield `cursor-${i}-${'x'.repeat(200)}`;
    })()).error).toBeUndefined();
    // 200,000 cursors of 200+ bytes would be 40 MB kept; the guard keeps 22-character digests of the last 10,000.
    const recent = (guard as unknown as { recent: Set<string> }).recent;
    expect(recent.size).toBe(10_000);
    expect([...recent].every((key) => key.length === 22)).toBe(true);
  });

  it('the same non-empty page twice in a row is a loop; empty pages (polling) never are', () => {
    const guard = new CursorGuard('GET /events');
    guard.page('', true);
    guard.page('', true);
    guard.page('[1]', false);
    guard.page('', true);
    guard.page('[2]', false);
    expect(() => guard.page('[2]', false)).toThrow('GET /events returned the same page twice in a row (page 6); stopping, the walk would never end');
  });

  it('shows at most 60 characters of a hostile cursor', () => {
    const long = 'y'.repeat(500);
    expect(walk(new CursorGuard('GET /x', long), [long]).error?.message).toBe(`GET /x handed back cursor "${'y'.repeat(60)}…", which this walk already followed (page 0); stopping, the walk would never end`);
  });
});

describe('readPage: a body that is not a page is never read as an empty one', () => {
  it('no items array, or a cursor that is not a string: invalid_response (exit 5) naming the walk', () => {
    const refused = (body: unknown) => {
      try {
        readPage(body, 'GET /events');
        return undefined;
      } catch (error) {
        return [(error as SvcError).code, (error as SvcError).exitCode, (error as Error).message];
      }
    };
    expect(refused({ items: 'abc', nextCursor: 'X' })).toEqual(['invalid_response', 5, 'GET /events answered a page with no items array; it is not read as an empty page']);
    expect(refused({ nextCursor: 'X' })?.[2]).toBe('GET /events answered a page with no items array; it is not read as an empty page');
    expect(refused({ items: { 0: {} }, nextCursor: 'X' })?.[0]).toBe('invalid_response');
    expect(refused(null)?.[0]).toBe('invalid_response');
    expect(refused([])?.[0]).toBe('invalid_response');
    expect(refused({ items: [], nextCursor: 5 })?.[2]).toBe('GET /events answered a page with a nextCursor that is not a string (number); it is not read as an empty page');
  });

  it('a page: its items; a null, absent or empty cursor is none', () => {
    expect(readPage({ items: [1], nextCursor: 'A' })).toEqual({ items: [1], nextCursor: 'A' });
    expect(readPage({ items: [], nextCursor: null })).toEqual({ items: [], nextCursor: null });
    expect(readPage({ items: [2] })).toEqual({ items: [2], nextCursor: null });
    expect(readPage({ items: [], nextCursor: '' })).toEqual({ items: [], nextCursor: null });
  });
});

describe('pageIdentity', () => {
  it("is a page's ids where every item has one, else its items as JSON", () => {
    expect(pageIdentity([{ id: 'a', name: 'x' }, { id: 'b' }])).toBe('a\nb');
    expect(pageIdentity([{ id: 'a' }, { name: 'no id' }])).toBe('[{"id":"a"},{"name":"no id"}]');
    expect(pageIdentity([{ id: 1 }])).toBe('[{"id":1}]');
    expect(pageIdentity([null])).toBe('[null]');
  });
});
