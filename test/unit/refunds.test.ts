import { describe, expect, it } from 'vitest';
import { addDecimals, refundOf, totalsByCurrency } from '../../src/features/refunds/refund.js';

describe('addDecimals', () => {
  it('adds decimal strings exactly, where floating point would not', () => {
    expect(addDecimals('0.1', '0.2')).toBe('0.3');
    expect(addDecimals('1100', '2500')).toBe('3600');
    expect(addDecimals('0.05', '0.95')).toBe('1');
    expect(addDecimals('9007199254740993', '1')).toBe('9007199254740994');
    expect(addDecimals('12.5', '0.125')).toBe('12.625');
    expect(addDecimals('0', '0.000001')).toBe('0.000001');
  });

  it('refuses what is not a non-negative decimal', () => {
    expect(addDecimals('1e3', '1')).toBeUndefined();
    expect(addDecimals('-1', '1')).toBeUndefined();
    expect(addDecimals('1.', '1')).toBeUndefined();
  });
});

describe('totalsByCurrency', () => {
  it('sums per currency name in first-seen order; a missing price makes that total unknown', () => {
    const coins = { name: 'Coins', symbol: 'C' };
    const stars = { name: 'Stars', symbol: 'S' };
    expect(
      totalsByCurrency([
        { coinPrice: '0.1', currency: coins },
        { coinPrice: '10', currency: stars },
        { coinPrice: '0.2', currency: coins },
        { coinPrice: null, currency: stars },
      ]),
    ).toEqual([
      { currency: 'Coins', count: 2, total: '0.3' },
      { currency: 'Stars', count: 2, total: undefined },
    ]);
  });
});

describe('refundOf', () => {
  it('reads an order.cancelled event; other types and events without an order id are no refund', () => {
    const data = { id: 'o1', coinPrice: '5', currency: { name: 'C', symbol: 'c' }, reference: 'R', brandId: 'b', status: 'CANCELLED' };
    expect(refundOf({ id: 'e', type: 'order.cancelled', occurredAt: 't', environment: 'production', data })).toEqual({
      orderId: 'o1', coinPrice: '5', currency: { name: 'C', symbol: 'c' }, reference: 'R', brandId: 'b', eventId: 'e', cancelledAt: 't',
    });
    expect(refundOf({ id: 'e', type: 'order.sent', occurredAt: 't', environment: 'production', data })).toBeUndefined();
    expect(refundOf({ id: 'e', type: 'order.cancelled', occurredAt: 't', environment: 'production', data: {} })).toBeUndefined();
    expect(refundOf(undefined)).toBeUndefined();
  });
});
