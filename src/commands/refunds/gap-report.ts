/**
 * What `refunds due` and `refunds run` say once the feed is read: the window the feed can no longer
 * show (its 30-day retention), and the reconciliation with the cancelled orders of this key
 * (features/refunds/gap.ts). Orders of unknown refund status are listed on stderr, never paid.
 */
import type { ApiClient } from '../../api/client.js';
import type { Context } from '../../app/context.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { EVENT_RETENTION_DAYS, lostWindow, oldestKeptEventAt, unknownRefunds, type UnknownRefund } from '../../features/refunds/gap.js';
import type { Ledger } from '../../features/refunds/ledger.js';
import { currencyName } from '../../features/refunds/refund.js';

/** The exit status the help of `due` and `run` states. */
export const GAP_HELP = `Exit status 1 when cancelled orders of this key are in neither the feed nor the ledger (the feed
keeps events ${EVENT_RETENTION_DAYS} days; a refund cursor older than that, or a first run on an older key, cannot
see them): each is listed on stderr as "cancelled, refund status unknown", with the window the feed
can no longer show. svc never pays them: pay by hand, then record each with svc refunds mark.`;

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
