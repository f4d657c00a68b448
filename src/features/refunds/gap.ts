/**
 * The feed keeps events 30 days (api-spec: event retention). A refund cursor saved longer ago than
 * that, or a first run on a feed that has already dropped events, cannot see the order.cancelled
 * events that fell out: refunds would be lost without a word. Two checks make the loss visible:
 * - the window: the time of the last event the saved cursor passed (kept in the cursor file) against
 *   the oldest event the feed still keeps; an earlier one means the events between can no longer be read;
 * - the reconciliation the API allows: the cancelled orders of this key (GET /reward-store-orders
 *   ?status=CANCELLED) that neither the ledger nor this read of the feed holds are "cancelled,
 *   refund status unknown", for the operator to settle (`refunds mark` or pay). Never paid from here.
 */
import type { ApiClient } from '../../api/client.js';
import { listEvents, listRewardStoreOrders } from '../../api/resources.js';
import { CursorGuard } from '../../api/cursor-guard.js';
import { ApiError } from '../../core/errors.js';
import type { Ledger } from './ledger.js';

/** How long the service keeps events (api-spec: "Events are kept 30 days"). */
export const EVENT_RETENTION_DAYS = 30;

export interface UnknownRefund {
  orderId: string;
  coinPrice: string | null;
  currency: unknown;
  reference: string | null;
  brandId: string | null;
  /** the order's last change: for a CANCELLED order (a final state), its cancellation */
  updatedAt: string | null;
}

/** The time of the oldest event the feed still keeps; undefined when the feed is empty. */
export async function oldestKeptEventAt(client: ApiClient, signal: AbortSignal): Promise<string | undefined> {
  const page = (await listEvents(client, { limit: 1 }, { signal })).body as { items?: { occurredAt?: unknown }[] };
  const at = page.items?.[0]?.occurredAt;
  return typeof at === 'string' ? at : undefined;
}

/**
 * The window the feed can no longer show: from the last event the cursor passed to the oldest kept
 * event, when the former is older. Undefined when nothing fell out (or the cursor's time is unknown).
 */
export function lostWindow(cursorEventAt: string | undefined, oldestKeptAt: string | undefined): { from: string; to: string } | undefined {
  if (cursorEventAt === undefined || oldestKeptAt === undefined) return undefined;
  const from = Date.parse(cursorEventAt);
  const to = Date.parse(oldestKeptAt);
  return Number.isFinite(from) && Number.isFinite(to) && from < to ? { from: cursorEventAt, to: oldestKeptAt } : undefined;
}

/**
 * Cancelled orders of this key that are neither in the ledger nor among the refunds this read of the
 * feed found (`seen`, lower-case order ids): their refund status is unknown. Oldest change first.
 */
export async function unknownRefunds(client: ApiClient, ledger: Ledger, seen: ReadonlySet<string>, signal: AbortSignal): Promise<UnknownRefund[]> {
  await ledger.refresh();
  const unknown: UnknownRefund[] = [];
  const guard = new CursorGuard('GET /reward-store-orders', null);
  let after: string | undefined;
  for (;;) {
    let page: OrderPage;
    try {
      page = (await listRewardStoreOrders(client, { status: 'CANCELLED', limit: 100, ...(after ? { after } : {}) }, { signal })).body as unknown as OrderPage;
    } catch (error) {
      // A key without REWARD_STORES places no orders: it has no refunds, known or unknown.
      if (error instanceof ApiError && error.status === 403 && after === undefined) return [];
      throw error;
    }
    const items = Array.isArray(page.items) ? page.items : [];
    for (const order of items) {
      if (typeof order?.id !== 'string' || order.status !== 'CANCELLED') continue;
      const key = order.id.toLowerCase();
      if (ledger.has(key) || seen.has(key)) continue;
      unknown.push({
        orderId: order.id,
        coinPrice: stringOrNull(order.coinPrice),
        currency: order.currency ?? null,
        reference: stringOrNull(order.reference),
        brandId: stringOrNull(order.brandId),
        updatedAt: stringOrNull(order.updatedAt),
      });
    }
    if (typeof page.nextCursor !== 'string' || items.length === 0) break;
    guard.follow(page.nextCursor);
    after = page.nextCursor;
  }
  return unknown.sort((a, b) => (a.updatedAt ?? '').localeCompare(b.updatedAt ?? ''));
}

interface OrderPage {
  items?: { id?: unknown; status?: unknown; coinPrice?: unknown; currency?: unknown; reference?: unknown; brandId?: unknown; updatedAt?: unknown }[];
  nextCursor?: unknown;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
