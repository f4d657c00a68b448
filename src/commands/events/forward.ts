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
import type { Dispatcher } from 'undici';
import { describeNetworkError, loadTransport } from '../../api/transport.js';
import { scrubProxyCredentials, type ProxySettings } from '../../api/proxy.js';
import { isLoopbackHost } from '../../core/config.js';
import { InterruptedError, UsageError } from '../../core/errors.js';
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

/**
 * Checks `--forward-to` before any connection: https://, or plain http:// to a loopback host only
 * (events carry players' records; they never cross a network unencrypted). No user name or password
 * in the URL. Only the URL's text is looked at: nothing is resolved or connected here.
 */
export function forwardUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError('--forward-to: not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--forward-to: must be an https:// URL (or http:// to a loopback host), got ${url.protocol}`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`--forward-to: plain http:// only to a loopback host (127.0.0.1, ::1, localhost); use https:// for ${url.hostname}`);
  }
  if (url.username || url.password) throw new UsageError('--forward-to: must not carry a user name or password');
  return url.toString();
}

export class Forwarder {
  private dispatcherPromise?: Promise<Dispatcher>;
  /** an event used up its attempts and nothing has been delivered since */
  private receiverDown = false;

  constructor(private readonly options: ForwarderOptions) {}

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
    if (this.dispatcherPromise) await (await this.dispatcherPromise).close();
  }

  private dispatcher(): Promise<Dispatcher> {
    // A pool of its own: the receiver gets the service's delivery time-outs, not the API client's.
    this.dispatcherPromise ??= loadTransport().then((transport) =>
      transport.createAgent({ connect: { timeout: 5_000 }, headersTimeout: 10_000, bodyTimeout: 10_000 }, this.options.proxy),
    );
    return this.dispatcherPromise;
  }

  private async attempt(item: FeedEvent): Promise<Omit<ForwardResult, 'attempts'>> {
    const transport = await loadTransport();
    const dispatcher = await this.dispatcher();
    const headers = {
      'content-type': 'application/json',
      'svc-event-id': String(item.event?.id ?? ''),
      // Signed at each attempt, as the service does, so a slow retry never carries a stale time.
      'svc-signature': signatureHeader(this.options.secret, Math.floor(Date.now() / 1000), item.raw),
    };
    try {
      const response = await transport.request(dispatcher, this.options.url, { method: 'POST', headers, body: item.raw, signal: this.options.signal });
      await response.body.dump();
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return ok ? { ok, status: response.statusCode } : { ok, status: response.statusCode, error: `receiver answered ${response.statusCode}` };
    } catch (error) {
      if (this.options.signal.aborted) throw new InterruptedError();
      return { ok: false, error: scrubProxyCredentials(describeNetworkError(error), this.options.proxy) };
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
