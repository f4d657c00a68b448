/**
 * Shapes of the sandbox's admin API (`{adminUrl}`, docs/sandbox.md) that both the sandbox and
 * the commands that drive it (`svc trigger`) read: neither imports the other.
 */

/** One webhook delivery attempt, as admin `GET /deliveries` lists it. */
export interface DeliveryRecord {
  eventId: string;
  type: string;
  keyName: string;
  url: string;
  attempt: number;
  status: number | null;
  error: string | null;
  at: string;
}
