/**
 * Due refunds as a producer, in the style of the event feed it wraps: an async generator of pages
 * of refunds (each order.cancelled whose orderId is neither in the ledger nor already yielded), with
 * the cursor that resumes after the page, then "caught up", then, with `follow`, more as they come.
 * It honours the AbortSignal and writes nothing; `due` prints, `run` pays.
 */
import type { ApiClient } from '../../api/client.js';
import { API_LIMITS } from '../../api/types.js';
import { feed } from '../events/feed.js';
import type { Ledger } from './ledger.js';
import { refundOf, type Refund } from './refund.js';

export type DueElement =
  /** lastEventAt: when the page's last event occurred (undefined on an empty page) */
  | { kind: 'page'; refunds: Refund[]; cursor: string | null; lastEventAt: string | undefined }
  | { kind: 'caught-up'; cursor: string | null }
  | { kind: 'status'; level: 'warning' | 'info'; message: string };

export interface DueSourceOptions {
  client: ApiClient;
  ledger: Ledger;
  after: string | undefined;
  follow: boolean;
  intervalMs: number;
  signal: AbortSignal;
  /** filled with the (lower-case) order id of every refund yielded, for the reconciliation (gap.ts) */
  seen?: Set<string>;
}

/** The feed's biggest page: a catch-up over a month of events takes the fewest round trips. */
const PAGE_SIZE = API_LIMITS.pageSizeMax;

export async function* dueRefunds(options: DueSourceOptions): AsyncGenerator<DueElement> {
  const yielded = options.seen ?? new Set<string>();
  for await (const element of feed({ client: options.client, after: options.after, limit: PAGE_SIZE, follow: options.follow, intervalMs: options.intervalMs, signal: options.signal })) {
    if (element.kind !== 'page') {
      yield element;
      continue;
    }
    // Each poll sees refunds recorded since the last one (`refunds mark` from another shell).
    await options.ledger.refresh();
    const refunds: Refund[] = [];
    for (const { event } of element.events) {
      const refund = refundOf(event);
      if (refund === undefined) continue;
      const key = refund.orderId.toLowerCase();
      // The feed delivers at least once: a repeated order.cancelled is the same refund.
      if (yielded.has(key) || options.ledger.has(key)) continue;
      yielded.add(key);
      refunds.push(refund);
    }
    const at = element.events.at(-1)?.event?.occurredAt;
    yield { kind: 'page', refunds, cursor: element.cursor, lastEventAt: typeof at === 'string' ? at : undefined };
  }
}
