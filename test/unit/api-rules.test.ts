import { describe, expect, it } from 'vitest';
import { apiErrorCode } from '../../src/api/error-codes.js';
import { MASKED_KEY, isApiKeyFormat } from '../../src/api/keys.js';
import { API_KEY, API_LIMITS } from '../../src/api/types.js';
import { ApiError } from '../../src/core/errors.js';
import * as validate from '../../src/api/checks.js';

describe('API rules read from the description', () => {
  it('the key format: prefix and characters as bearerAuth x-key-format states them', () => {
    expect(API_KEY).toEqual({ prefix: 'svc_live_', characters: 'A-Za-z0-9', pattern: '^svc_live_[A-Za-z0-9]+$' });
    expect(MASKED_KEY).toBe('svc_live_…');
    expect(['svc_live_Ab09', 'svc_live_', 'svc_live_a-b', 'svc_live_a_b', 'SVC_LIVE_ab', ' svc_live_ab', 'svc_test_ab'].map(isApiKeyFormat)).toEqual([
      true, false, false, false, false, false, false,
    ]);
  });

  it('page sizes: --limit takes the Limit parameter\'s range', () => {
    expect([API_LIMITS.pageSizeMin, API_LIMITS.pageSizeMax, API_LIMITS.pageSizeDefault]).toEqual([1, 100, 25]);
    expect(validate.limit('100')).toBe(100);
    expect(() => validate.limit('101')).toThrow('--limit: must be a whole number from 1 to 100, got 101');
  });

  it('a refusal\'s code is an ErrorCode only when the description lists it', () => {
    const refusal = (code: string) => new ApiError({ status: 409, code, detail: 'x' });
    expect([apiErrorCode(refusal('price_changed')), apiErrorCode(refusal('some_later_code')), apiErrorCode(new ApiError({ status: 502 }))]).toEqual([
      'price_changed', undefined, undefined,
    ]);
  });
});
