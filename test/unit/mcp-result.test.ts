/** What an MCP tool hands the model (src/features/mcp/result.ts): bounded lists that say they were cut, errors as problem documents, no secrets. */
import { describe, expect, it } from 'vitest';
import { ApiError, UsageError } from '../../src/core/errors.js';
import { MAX_RESULT_CHARS, boundedList, dataResult, errorResult } from '../../src/features/mcp/result.js';

const items = Array.from({ length: 200 }, (_, i) => ({ id: `item-${i}`, note: 'x'.repeat(500) }));

describe('boundedList', () => {
  it('a list that fits is returned whole, its cursor kept', () => {
    expect(boundedList('items', items.slice(0, 3), { nextCursor: 'c2' }, () => 'more')).toEqual({ items: items.slice(0, 3), nextCursor: 'c2' });
  });

  it('a list too large keeps the first items that fit, says how many of how many and how to get more, and drops the cursor', () => {
    const result = boundedList('items', items, { nextCursor: 'c2', total: 200 }, (shown) => `limit: ${shown}`);
    const shown = (result.items as unknown[]).length;
    expect(JSON.stringify(result).length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    expect(shown).toBeGreaterThan(50);
    expect(result).toEqual({ items: items.slice(0, shown), total: 200, truncated: { shown, of: 200, howToGetMore: `limit: ${shown}` } });
  });
});

describe('results and errors', () => {
  const key = 'svc_live_0123456789abcdefghijklmnopqrstuv';
  const secret = 'whsec_0123456789abcdef';

  it('a result is its JSON text and its structured content, with every key and secret replaced', () => {
    const result = dataResult({ note: `key ${key} and ${secret}`, nested: { webhookSecret: 'anything' } }, [key, secret]);
    expect(result.content[0].text).toBe(JSON.stringify(result.structuredContent));
    expect(result.content[0].text).not.toContain(key);
    expect(result.content[0].text).not.toContain(secret);
    expect(result.structuredContent).toMatchObject({ nested: { webhookSecret: '[redacted]' } });
  });

  it('a result too large that is not a list is cut to a part of its JSON, saying so', () => {
    const result = dataResult({ sections: items }, []);
    const text = JSON.stringify({ sections: items });
    expect(result.structuredContent).toEqual({
      truncated: { chars: text.length, shown: MAX_RESULT_CHARS, howToGetMore: 'the answer is too large to return whole: narrow the call (a filter, a smaller limit, a later since)' },
      partialJson: text.slice(0, MAX_RESULT_CHARS),
    });
  });

  it("an API error is the service's problem document with svc's hint; svc's own errors carry code, detail and hint", () => {
    const problem = { type: 'about:blank', title: 'Conflict', status: 409, code: 'price_changed', detail: 'the price changed', coinPrice: '12.50' };
    expect(errorResult(new ApiError(problem, { hint: 'read the store again' }), []).structuredContent).toEqual({ error: { ...problem, hint: 'read the store again' } });
    expect(errorResult(new UsageError('cursor: not a cursor'), [])).toMatchObject({ isError: true, structuredContent: { error: { code: 'usage_error', detail: 'cursor: not a cursor' } } });
  });
});
