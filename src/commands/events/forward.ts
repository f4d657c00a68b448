/**
 * `--forward-to`: POSTs each event to a local receiver exactly as the service delivers a webhook —
 * the same body bytes, `Content-Type`, `Svc-Event-Id` and a fresh `Svc-Signature` — with the
 * service's time-outs (5 s connect, 10 s response). A failed delivery (non-2xx, time-out, refused
 * connection) is retried with growing waits; `maxAttempts` bounds it (Infinity keeps trying).
 */
import type { Dispatcher } from 'undici';
import { describeNetworkError, loadTransport } from '../../api/transport.js';
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
}

const MAX_RETRY_WAIT_MS = 30_000;

/** Checks `--forward-to`: an absolute http(s) URL (plain http is fine: the receiver is usually local). */
export function forwardUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--forward-to: not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--forward-to: must be an http:// or https:// URL, got ${url.protocol}`);
  return url.toString();
}

export class Forwarder {
  private dispatcherPromise?: Promise<Dispatcher>;

  constructor(private readonly options: ForwarderOptions) {}

  async forward(item: FeedEvent): Promise<ForwardResult> {
    const baseMs = this.options.retryBaseMs ?? 500;
    for (let attempt = 1; ; attempt++) {
      const result = await this.attempt(item);
      if (result.ok || attempt >= this.options.maxAttempts) return { ...result, attempts: attempt };
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
      transport.createAgent({ connect: { timeout: 5_000 }, headersTimeout: 10_000, bodyTimeout: 10_000 }),
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
      return { ok: false, error: describeNetworkError(error) };
    }
  }
}

export function describe(result: Omit<ForwardResult, 'attempts'>): string {
  return result.error ?? `receiver answered ${result.status}`;
}
