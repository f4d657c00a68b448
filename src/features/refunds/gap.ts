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
import type { Context } from '../../app/context.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { listEvents, listRewardStoreOrders } from '../../api/resources.js';
import { CursorGuard } from '../../api/cursor-guard.js';
import { ApiError } from '../../core/errors.js';
import type { Ledger } from './ledger.js';
import { currencyName } from './refund.js';

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

/**
 * What `refunds due` and `refunds run` say once the feed is read: the window the feed can no longer
 * show, and the reconciliation. Orders of unknown refund status are listed on stderr, never paid.
 */
export interface GapCheck {
  client: ApiClient;
  ledger: Ledger;
  /** order ids (lower case) of the refunds this read of the feed found */
  seen: ReadonlySet<string>;
  /** undefined on a first run (no cursor, or --from-start) */
  cursor: string | undefined;
  /** when the last event the saved cursor passed occurred, when the cursor file says */
  cursorEventAt: string | undefined;
}

export interface GapResult {
  unknown: UnknownRefund[];
  /** the oldest event the feed keeps now, when a window was lost (else undefined) */
  keptFrom: string | undefined;
}

/** Checks and tells; the caller exits 1 when `unknown` is not empty. */
export async function reportGap(ctx: Context, check: GapCheck): Promise<GapResult> {
  const warn = (line: string) => ctx.io.info(terminalSafeLine(line));
  const unknown = await unknownRefunds(check.client, check.ledger, check.seen, ctx.signal);
  const needsOldest = (check.cursor !== undefined && check.cursorEventAt !== undefined) || unknown.length > 0;
  const oldest = needsOldest ? await oldestKeptEventAt(check.client, ctx.signal) : undefined;
  const window = check.cursor !== undefined ? lostWindow(check.cursorEventAt, oldest) : undefined;
  const kept = `the event feed keeps ${EVENT_RETENTION_DAYS} days`;
  if (window) {
    warn(`warning: ${kept}: the events from ${window.from} to ${window.to} can no longer be read, and refunds cancelled then are not in it`);
  } else if (unknown.length > 0) {
    warn(`warning: ${kept}${oldest ? ` and now starts at ${oldest}` : ''}: events before it can no longer be read, and refunds cancelled then are not in it`);
  }
  if (unknown.length === 0) {
    if (window) warn('reconciled with GET /reward-store-orders?status=CANCELLED: every cancelled order of this key is in the ledger or due above');
    return { unknown, keptFrom: window ? oldest : undefined };
  }
  const count = `${unknown.length} cancelled ${unknown.length === 1 ? 'order' : 'orders'}`;
  warn(`${count} of this key ${unknown.length === 1 ? 'is' : 'are'} in neither the feed nor the ledger (GET /reward-store-orders?status=CANCELLED); svc does not pay ${unknown.length === 1 ? 'it' : 'them'}:`);
  for (const order of unknown) {
    warn(`  cancelled, refund status unknown: ${order.orderId}  ${order.coinPrice ?? '?'} ${currencyName(order.currency)}  (cancelled by ${order.updatedAt ?? '?'})`);
  }
  warn("settle each: pay it by hand, then record it with 'svc refunds mark ORDER_ID' (or mark one refunded by other means)");
  return { unknown, keptFrom: window ? oldest : undefined };
}
