/**
 * Requests beside the API — a sandbox's admin API, a webhook receiver (`--forward-to`, `webhooks
 * listen --forward-to`, replays): a keep-alive pool of their own with the time-outs they are given,
 * on the same transport as the API client (proxies included), and bodies read only up to a bound. A failure is a
 * `SideRequestError` in words a person can act on; Ctrl-C is an InterruptedError.
 */
import type { Dispatcher } from 'undici';
import { InterruptedError } from '../core/errors.js';
import { ResponseTooLargeError, readBodyStart, readBoundedText } from './body.js';
import { scrubProxyCredentials, type ProxySettings } from './proxy.js';
import { describeNetworkError, loadTransport } from './transport.js';

export interface SideOptions {
  /** connect time-out (default 5 s, the service's for webhooks) */
  connectTimeoutMs?: number;
  /** time-out for the response headers and, separately, for its body */
  responseTimeoutMs: number;
  /** the most of a response body read, as text; the rest is dropped unread (default 1 MiB; 0: none) */
  maxBodyBytes?: number;
  /** 'refuse': a body over the bound (32 MiB unless maxBodyBytes) is `response_too_large`, as the API's are; default: cut */
  overLimit?: 'cut' | 'refuse';
  /** HTTPS_PROXY/HTTP_PROXY/NO_PROXY as read by Context.proxy(); undefined: no proxy */
  proxy?: ProxySettings;
}

export interface SideRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal: AbortSignal;
}

export interface SideResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** the body as text, at most maxBodyBytes of it */
  text: string;
}

export class SideRequestError extends Error {}

const DEFAULT_MAX_BODY = 1024 * 1024;

export class SideRequests {
  private dispatcher?: Dispatcher;

  constructor(private readonly options: SideOptions) {}

  async send(url: string, request: SideRequest): Promise<SideResponse> {
    const transport = await loadTransport();
    const { connectTimeoutMs = 5_000, responseTimeoutMs } = this.options;
    this.dispatcher ??= transport.createAgent({ connect: { timeout: connectTimeoutMs }, headersTimeout: responseTimeoutMs, bodyTimeout: responseTimeoutMs }, this.options.proxy);
    try {
      const response = await transport.request(this.dispatcher, url, { method: request.method, headers: request.headers, body: request.body, signal: request.signal });
      const text =
        this.options.overLimit === 'refuse'
          ? await readBoundedText(response, `${request.method} ${url}`, this.options.maxBodyBytes)
          : await readBodyStart(response.body, this.options.maxBodyBytes ?? DEFAULT_MAX_BODY);
      return { status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      if (request.signal.aborted) throw new InterruptedError();
      if (error instanceof ResponseTooLargeError) throw error;
      // A proxy's credentials never reach a message (a library may quote the proxy URL).
      throw new SideRequestError(scrubProxyCredentials(describeNetworkError(error), this.options.proxy));
    }
  }

  async close(): Promise<void> {
    await this.dispatcher?.close();
  }
}
