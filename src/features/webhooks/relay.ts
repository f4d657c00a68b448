/**
 * `webhooks listen --forward-to`: relays verified deliveries, one at a time and in order, to another
 * receiver: the same body bytes, Content-Type and every Svc-* header (the original signature), with
 * the service's time-outs. Says the receiver's status for each.
 */
import { SideRequests } from '../../api/side.js';
import type { ProxySettings } from '../../api/proxy.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import type { Delivery } from './delivery.js';

/** Verified deliveries waiting to be forwarded; beyond this, new ones are not forwarded (and said so). */
const MAX_FORWARD_QUEUE = 1_000;

export class Relay {
  private queue = Promise.resolve();
  private pending = 0;
  private readonly http: SideRequests;

  constructor(
    private readonly url: string,
    private readonly signal: AbortSignal,
    proxy?: ProxySettings,
  ) {
    // the service's delivery time-outs: 5 s connect, 10 s response
    this.http = new SideRequests({ responseTimeoutMs: 10_000, maxBodyBytes: 0, proxy });
  }

  enqueue(delivery: Delivery, say: (line: string) => void): void {
    const id = terminalSafeLine(delivery.id) || '-';
    if (this.pending >= MAX_FORWARD_QUEUE) {
      say(`→ not forwarded ${id}: ${MAX_FORWARD_QUEUE} deliveries already waiting for ${this.url}`);
      return;
    }
    this.pending++;
    this.queue = this.queue
      .then(async () => say(`→ forwarded ${id} to ${this.url}: ${await this.send(delivery)}`))
      .finally(() => this.pending--);
  }

  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    await this.http.close();
  }

  private async send(delivery: Delivery): Promise<string> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(delivery.headers)) {
      if ((name === 'content-type' || name.startsWith('svc-')) && typeof value === 'string') headers[name] = value;
    }
    try {
      return `${(await this.http.send(this.url, { method: 'POST', headers, body: delivery.body, signal: this.signal })).status}`;
    } catch (error) {
      // Never a rejection in the queue: an interrupted relay is reported like any other failure.
      return `failed (${error instanceof Error ? error.message : String(error)})`;
    }
  }
}
