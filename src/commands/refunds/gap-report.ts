/**
 * The exit status `refunds due` and `refunds run` state in their help; what they say once the feed
 * is read is reportGap (features/refunds/gap.ts).
 */
import { EVENT_RETENTION_DAYS } from '../../features/refunds/gap.js';

/** The exit status the help of `due` and `run` states. */
export const GAP_HELP = `Exit status 1 when cancelled orders of this key are in neither the feed nor the ledger (the feed
keeps events ${EVENT_RETENTION_DAYS} days; a refund cursor older than that, or a first run on an older key, cannot
see them): each is listed on stderr as "cancelled, refund status unknown", with the window the feed
can no longer show. svc never pays them: pay by hand, then record each with svc refunds mark.`;
