/**
 * `--forward-to`: POSTs each event to a local receiver exactly as the service delivers a webhook —
 * the same body bytes, `Content-Type`, `Svc-Event-Id` and a fresh `Svc-Signature` — with the
 * service's time-outs (5 s connect, 10 s response).
 *
 * A receiver's 4xx is its answer to this event: shown, never retried. 5xx, time-outs and connection
 * errors are retried with growing waits, `maxAttempts` in all; after that the event is reported as
 * not delivered and the tail goes on. While the receiver stays down (an event used up its attempts
 * and none has been delivered since), each later event gets one attempt, so a dead receiver costs
 * one round of retries, not one per event.
 */
import { SideRequestError, SideRequests } from '../../api/side.js';
import type { ProxySettings } from '../../api/proxy.js';
import { deliveryUrl } from '../../core/net.js';
import { sleep } from '../../core/sleep.js';
import { signatureHeader } from '../../core/signature.js';
import type { FeedEvent } from './feed.js';

export interface ForwardResult {
  ok: boolean;
  /** the receiver's HTTP status, when it answered */
  status?: number;
  /** why the last attempt failed */
  error?: string;
  attempts: number;
  /** the receiver refused this event (4xx): retrying would not help */
  refused?: boolean;
}

export interface ForwarderOptions {
  url: string;
  secret: string;
  maxAttempts: number;
  signal: AbortSignal;
  /** told about each failed attempt that will be retried */
  onRetry?: (message: string) => void;
  /** first wait between attempts; doubles each time up to 30 s */
  retryBaseMs?: number;
  /** HTTPS_PROXY / HTTP_PROXY / NO_PROXY (api/proxy.ts); a loopback receiver is never proxied */
  proxy?: ProxySettings;
}

const MAX_RETRY_WAIT_MS = 30_000;

/** Checks `--forward-to` before any connection (see deliveryUrl). */
export const forwardUrl = (value: string): string => deliveryUrl(value, '--forward-to');

export class Forwarder {
  /** A pool of its own: the receiver gets the service's delivery time-outs (5 s connect, 10 s response), not the API client's. */
  private readonly http: SideRequests;
  /** an event used up its attempts and nothing has been delivered since */
  private receiverDown = false;

  constructor(private readonly options: ForwarderOptions) {
    this.http = new SideRequests({ responseTimeoutMs: 10_000, maxBodyBytes: 0, proxy: options.proxy });
  }

  async forward(item: FeedEvent): Promise<ForwardResult> {
    const baseMs = this.options.retryBaseMs ?? 500;
    const maxAttempts = this.receiverDown ? 1 : this.options.maxAttempts;
    for (let attempt = 1; ; attempt++) {
      const result = await this.attempt(item);
      const refused = result.status !== undefined && result.status >= 400 && result.status < 500;
      // A 4xx is an answer: the receiver is up, it just does not take this event.
      if (result.ok || refused) this.receiverDown = false;
      if (refused) return { ...result, attempts: attempt, refused: true };
      if (!result.ok && attempt >= maxAttempts) this.receiverDown = true;
      if (result.ok || attempt >= maxAttempts) return { ...result, attempts: attempt };
      const waitMs = Math.min(MAX_RETRY_WAIT_MS, baseMs * 2 ** (attempt - 1));
      this.options.onRetry?.(`forwarding ${item.event?.id ?? 'event'} failed (${describe(result)}); attempt ${attempt + 1} in ${(waitMs / 1000).toFixed(1)}s`);
      await sleep(waitMs, this.options.signal);
    }
  }

  async close(): Promise<void> {
    await this.http.close();
  }

  private async attempt(item: FeedEvent): Promise<Omit<ForwardResult, 'attempts'>> {
    const headers = {
      'content-type': 'application/json',
      'svc-event-id': String(item.event?.id ?? ''),
      // Signed at each attempt, as the service does, so a slow retry never carries a stale time.
      'svc-signature': signatureHeader(this.options.secret, Math.floor(Date.now() / 1000), item.raw),
    };
    try {
      const { status } = await this.http.send(this.options.url, { method: 'POST', headers, body: item.raw, signal: this.options.signal });
      const ok = status >= 200 && status < 300;
      return ok ? { ok, status } : { ok, status, error: `receiver answered ${status}` };
    } catch (error) {
      if (!(error instanceof SideRequestError)) throw error;
      return { ok: false, error: error.message };
    }
  }
}

export function describe(result: Omit<ForwardResult, 'attempts'>): string {
  return result.error ?? `receiver answered ${result.status}`;
}

/** What goes beside an event: `→ 204`, `→ 404 (refused, not retried)`, `→ not delivered after 4 attempts: …`. */
export function forwardNote(result: ForwardResult): string {
  if (result.ok) return `→ ${result.status}`;
  if (result.refused) return `→ ${result.status} (refused, not retried)`;
  return `→ not delivered after ${result.attempts} attempt${result.attempts === 1 ? '' : 's'}: ${describe(result)}`;
}
