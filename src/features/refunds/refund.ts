/**
 * What a due refund is: an order.cancelled event of the feed, read defensively (a malformed event is
 * skipped, never a crash), and the exact sum of decimal-string prices per currency for tables.
 */
import { API_PATTERNS, type SvcEvent } from '../../api/types.js';

export interface Refund {
  orderId: string;
  coinPrice: string | null;
  /** the order's currency as the API sent it ({name, symbol}) */
  currency: unknown;
  reference: string | null;
  brandId: string | null;
  eventId: string | null;
  cancelledAt: string | null;
}

export const REFUND_EVENT = 'order.cancelled';

/** The refund an event asks for, or undefined when it is not an order.cancelled with an order id. */
export function refundOf(event: SvcEvent | undefined): Refund | undefined {
  if (event?.type !== REFUND_EVENT) return undefined;
  const data = (event.data ?? {}) as Record<string, unknown>;
  if (typeof data.id !== 'string' || data.id === '') return undefined;
  return {
    orderId: data.id,
    coinPrice: stringOrNull(data.coinPrice),
    currency: data.currency ?? null,
    reference: stringOrNull(data.reference),
    brandId: stringOrNull(data.brandId),
    eventId: stringOrNull(event.id),
    cancelledAt: stringOrNull(event.occurredAt),
  };
}

const ORDER_ID = new RegExp(API_PATTERNS.uuid, 'u');
const PRICE = new RegExp(API_PATTERNS.decimal, 'u');

/**
 * Why a refund cannot be paid as it reads (an order id that is not a UUID, a price that is not a
 * decimal): a CMD handed it would pay an unknown sum or act on a made-up id. Undefined when payable.
 */
export function unpayable(refund: Refund): string | undefined {
  if (!ORDER_ID.test(refund.orderId)) return 'its order id is not a UUID';
  if (refund.coinPrice === null || !PRICE.test(refund.coinPrice)) return 'its coinPrice is not a decimal';
  return undefined;
}

/** The text a currency is known by: its name (or the raw value when the service sent a string). */
export function currencyName(currency: unknown): string {
  if (typeof currency === 'string') return currency;
  const value = (currency ?? {}) as { name?: unknown; symbol?: unknown };
  if (typeof value.name === 'string') return value.name;
  if (typeof value.symbol === 'string') return value.symbol;
  return '';
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** a + b for non-negative decimal strings, exactly (no floating point); undefined when one is not a decimal. */
export function addDecimals(a: string, b: string): string | undefined {
  const x = DECIMAL.exec(a);
  const y = DECIMAL.exec(b);
  if (!x || !y) return undefined;
  const scale = Math.max(x[2]?.length ?? 0, y[2]?.length ?? 0);
  const scaled = (match: RegExpExecArray) => BigInt(match[1] + (match[2] ?? '').padEnd(scale, '0'));
  const digits = (scaled(x) + scaled(y)).toString().padStart(scale + 1, '0');
  if (scale === 0) return digits;
  const fraction = digits.slice(-scale).replace(/0+$/, '');
  const whole = digits.slice(0, -scale);
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

export interface CurrencyTotal {
  currency: string;
  count: number;
  /** undefined when a price was missing or not a decimal */
  total: string | undefined;
}

/** Totals per currency, in the order currencies first appear. */
export function totalsByCurrency(refunds: readonly Pick<Refund, 'coinPrice' | 'currency'>[]): CurrencyTotal[] {
  const totals = new Map<string, CurrencyTotal>();
  for (const refund of refunds) {
    const currency = currencyName(refund.currency);
    const entry = totals.get(currency) ?? { currency, count: 0, total: '0' };
    entry.count++;
    entry.total = entry.total === undefined || refund.coinPrice === null ? undefined : addDecimals(entry.total, refund.coinPrice);
    totals.set(currency, entry);
  }
  return [...totals.values()];
}
