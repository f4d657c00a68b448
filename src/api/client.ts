/**
 * The one HTTP core every command uses: auth, User-Agent, JSON bodies, per-attempt time-outs,
 * retries with backoff, idempotency keys kept across retries, client-side pacing, and
 * problem+json turned into typed errors. Commands never touch undici directly.
 */
import type { Dispatcher } from 'undici';
import { onAbort } from '../core/abort.js';
import { ApiError, InterruptedError, UnavailableError } from '../core/errors.js';
import { redactPersonal } from '../core/secrets.js';
import { redact } from './keys.js';
import { sleep } from '../core/sleep.js';
import { USER_AGENT } from '../version.js';
import { ResponseTooLargeError, readBoundedText } from './body.js';
import { Pacer, type Sleep } from './pacer.js';
import { errorCode, loadTransport, type Transport } from './transport.js';
import { describeProxy, scrubProxyCredentials, type ProxySettings } from './proxy.js';
import { isRetryable, retryDelayMs } from './retry.js';
import {
  headerValue,
  judgeAnswer,
  networkFailure,
  snippet,
  timeoutFailure,
  type AttemptFailure,
  type AttemptResult,
  type ResponseHeaders,
} from './attempt-result.js';
import type { ClientEventSink } from './client-events.js';
import { dryRunRequest, type DryRunRequest } from './dry-run.js';

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  /** per-attempt time-out for the whole response */
  timeoutMs?: number;
  maxRetries?: number;
  ratePerMinute?: number;
  dispatcher?: Dispatcher;
  /** HTTPS_PROXY / HTTP_PROXY / NO_PROXY as proxy.ts read them; undefined: every request goes direct */
  proxy?: ProxySettings;
  /** --dry-run: a request other than GET is handed to this (its Authorization redacted) instead of being sent */
  dryRun?: (request: DryRunRequest) => Promise<void>;
  /** request/response lines for --debug (already redacted when they arrive here) */
  debug?: (line: string) => void;
  /** what happens while calls run (retries, replays, the proxy, each call's start and end), for the caller to show */
  onEvent?: ClientEventSink;
  /** secrets to scrub from debug output besides the API key */
  secrets?: string[];
  sleep?: Sleep;
  /** the clock the pacer reads; tests that fake `sleep` fake this too */
  now?: () => number;
  random?: () => number;
}

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** Sends `Idempotency-Key`; the same value is used for every retry of this call. */
  idempotencyKey?: string;
  /** false for a call that must run at most once (POST /webhooks:test sends a real ping each time) */
  retry?: boolean;
  signal?: AbortSignal;
  /** extra request headers (`svc api -H`), lower-case names; they take the place of svc's own of the same name */
  headers?: Record<string, string>;
}

/** A request as one attempt sends it. */
interface Outgoing {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload: string | undefined;
}

/** An answer read whole, not yet judged. */
interface Answer {
  kind: 'answer';
  status: number;
  headers: ResponseHeaders;
  text: string;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: ResponseHeaders;
  body: T;
  replayed: boolean;
  /** how many attempts this answer took (1: the first); a replay at the first came from an earlier call */
  attempts?: number;
  /** the Idempotency-Key that was sent, if any */
  idempotencyKey?: string;
  /** --dry-run: the request was printed, not sent (status 0, body undefined) */
  dryRun?: boolean;
}

export class ApiClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  readonly maxRetries: number;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  readonly pacer: Pacer;
  private dispatcherPromise?: Promise<Dispatcher>;
  private onEvent?: ClientEventSink;
  /** numbers each call, pairing its `wait` events */
  private calls = 0;
  private readonly now: () => number;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 4;
    this.sleep = options.sleep ?? sleep;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.pacer = new Pacer(options.ratePerMinute ?? 3_000, this.sleep, this.now);
    this.onEvent = options.onEvent;
  }

  /** The sink of events, as given or last set. */
  get eventSink(): ClientEventSink | undefined {
    return this.onEvent;
  }

  /** Replaces the sink of events (bulk work counts retries and replays in its summary instead of showing them). */
  setOnEvent(sink: ClientEventSink | undefined): void {
    this.onEvent = sink;
  }

  /** A fresh idempotency key for a creating POST (Web Crypto's: node:crypto costs start-up time to load). */
  static newIdempotencyKey(): string {
    return crypto.randomUUID();
  }

  url(path: string, query?: Query): string {
    const url = new URL(this.baseUrl + (path.startsWith('/') ? path : `/${path}`));
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  async get<T>(path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.request<T>('GET', path, options)).body;
  }

  async post<T>(path: string, body: unknown, options: Omit<RequestOptions, 'body'> = {}): Promise<ApiResponse<T>> {
    return this.request<T>('POST', path, { ...options, body });
  }

  /**
   * One logical call: attempts until success, a final refusal, or the retry budget is spent.
   * Throws ApiError (the service refused), UnavailableError (still failing) or InterruptedError.
   */
  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const url = this.url(path, options.query);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      'user-agent': USER_AGENT,
      accept: 'application/json',
    };
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    Object.assign(headers, options.headers);
    if (this.options.dryRun && method.toUpperCase() !== 'GET') {
      await this.options.dryRun(dryRunRequest(method, url, headers, payload));
      return { status: 0, headers: {}, body: undefined as T, replayed: false, idempotencyKey: options.idempotencyKey, dryRun: true };
    }
    const call = ++this.calls;
    this.onEvent?.({ type: 'wait', phase: 'start', call });
    try {
      return await this.attempts<T>(method, path, url, headers, payload, options);
    } finally {
      this.onEvent?.({ type: 'wait', phase: 'end', call });
    }
  }

  private async attempts<T>(
    method: string,
    path: string,
    url: string,
    headers: Record<string, string>,
    payload: string | undefined,
    options: RequestOptions,
  ): Promise<ApiResponse<T>> {
    for (let retry = 0; ; retry++) {
      await this.pacer.acquire(options.signal);
      const attempt = await this.attempt(method, url, headers, payload, options.signal);
      if (attempt.kind === 'success') {
        const replayed = headerValue(attempt.headers['idempotent-replayed']) === 'true';
        if (replayed) this.onEvent?.({ type: 'replayed', idempotencyKey: options.idempotencyKey });
        return {
          status: attempt.status,
          headers: attempt.headers,
          body: attempt.body as T,
          replayed,
          attempts: retry + 1,
          idempotencyKey: options.idempotencyKey,
        };
      }
      const { outcome } = attempt;
      if (!isRetryable(outcome)) throw attempt.error;
      if (options.retry === false) throw attempt.error;
      if (retry >= this.maxRetries) throw this.exhausted(attempt.error, retry + 1, options.idempotencyKey);
      const waitMs = retryDelayMs(outcome, retry, this.random);
      if (outcome.kind === 'response' && outcome.status === 429) this.pacer.pauseUntil(this.now() + waitMs);
      this.onEvent?.({ type: 'retry', method, path, waitMs, outcome, retry: retry + 1, maxRetries: this.maxRetries });
      await this.sleep(waitMs, options.signal);
    }
  }

  /** Closes the keep-alive pool so the process can end promptly. */
  async close(): Promise<void> {
    if (!this.dispatcherPromise || this.options.dispatcher) return;
    const dispatcher = await this.dispatcherPromise;
    await dispatcher.close();
  }

  private dispatcher(): Promise<Dispatcher> {
    this.dispatcherPromise ??= this.options.dispatcher
      ? Promise.resolve(this.options.dispatcher)
      : loadTransport().then((transport) => {
          const { proxy } = this.options;
          if (proxy) {
            const via = (value: string | undefined) => (value ? describeProxy(value) : undefined);
            this.onEvent?.({ type: 'proxy', https: via(proxy.httpsProxy), http: via(proxy.httpProxy), noProxy: proxy.noProxy });
          }
          return transport.createAgent(undefined, proxy);
        });
    return this.dispatcherPromise;
  }

  /** One attempt: sent once under its own time-out, and what came back judged. */
  private async attempt(
    method: string,
    url: string,
    headers: Record<string, string>,
    payload: string | undefined,
    userSignal: AbortSignal | undefined,
  ): Promise<AttemptResult> {
    const transport = await loadTransport();
    const dispatcher = await this.dispatcher();
    if (userSignal?.aborted) throw new InterruptedError();
    const started = performance.now();
    const sent = await this.send(transport, dispatcher, { method, url, headers, payload }, userSignal);
    if (sent.kind === 'failure') return sent;
    this.debugResponse(sent.status, sent.headers, sent.text, performance.now() - started);
    return judgeAnswer(sent.status, sent.headers, sent.text);
  }

  /** Sends the request and reads its answer whole; a time-out or a network failure comes back as an attempt's failure. */
  private async send(transport: Transport, dispatcher: Dispatcher, request: Outgoing, userSignal: AbortSignal | undefined): Promise<Answer | AttemptFailure> {
    const { method, url, headers, payload } = request;
    // One controller per attempt, released as soon as the attempt ends: AbortSignal.timeout and
    // AbortSignal.any would keep every attempt's signal alive for the whole time-out (30 s), which
    // at backfill rates is tens of thousands of live objects.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    // Every request in flight shares the caller's signal: one listener for all of them (core/abort.ts).
    const releaseUserAbort = userSignal ? onAbort(userSignal, () => controller.abort()) : undefined;
    this.debugRequest(method, url, headers, payload);
    try {
      const response = await transport.request(dispatcher, url, { method: method as Dispatcher.HttpMethod, headers, body: payload, signal: controller.signal });
      // At most 32 MiB per answer: past that svc stops reading (response_too_large, not retried).
      const text = await readBoundedText(response, `${method} ${url}`);
      return { kind: 'answer', status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      if (userSignal?.aborted) throw new InterruptedError();
      return this.sendFailure(error, timedOut, method, url);
    } finally {
      clearTimeout(timer);
      releaseUserAbort?.();
    }
  }

  /** Why no answer came: a time-out or the network (failures to judge), or a body over the limit (thrown). */
  private sendFailure(error: unknown, timedOut: boolean, method: string, url: string): AttemptFailure {
    if (error instanceof ResponseTooLargeError) {
      this.debugLine(`< body over the limit; not read further`);
      throw error;
    }
    if (timedOut) {
      this.debugLine(`< time-out after ${this.timeoutMs} ms`);
      return timeoutFailure(method, url, this.timeoutMs);
    }
    const code = errorCode(error);
    this.debugLine(`< network error: ${code}`);
    return networkFailure(error, code, url, this.options.proxy);
  }

  private exhausted(error: ApiError | UnavailableError, attempts: number, idempotencyKey?: string): Error {
    const note = `after ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'}`;
    const hint = idempotencyKey ? `re-run with --idempotency-key ${idempotencyKey} to retry safely` : undefined;
    if (error instanceof ApiError) return new ApiError(error.problem, { retriesExhausted: true, note, hint });
    // The retry hint where one applies, else the failure's own (a proxy or a CA to check).
    return new UnavailableError(`${error.message} (${note})`, error.code, error.cause, hint ?? error.hint);
  }

  private debugRequest(method: string, url: string, headers: Record<string, string>, payload?: string): void {
    if (!this.options.debug) return;
    this.debugLine(`> ${method} ${url}`);
    for (const [name, value] of Object.entries(headers)) {
      this.debugLine(`> ${name}: ${name === 'authorization' ? 'Bearer [redacted]' : value}`);
    }
    // Player data (names, addresses, phones, e-mails, messages, custom-field answers) stays out of logs, like keys and secrets; responses too.
    if (payload !== undefined) this.debugLine(`> ${snippet(redactPersonal(payload), 2_000)}`);
  }

  private debugResponse(status: number, headers: ResponseHeaders, text: string, elapsedMs: number): void {
    if (!this.options.debug) return;
    this.debugLine(`< ${status} (${Math.round(elapsedMs)} ms)`);
    for (const name of ['content-type', 'retry-after', 'idempotent-replayed', 'request-id']) {
      const value = headerValue(headers[name]);
      if (value !== undefined) this.debugLine(`< ${name}: ${value}`);
    }
    this.debugLine(`< ${snippet(redactPersonal(text), 2_000)}`);
  }

  private debugLine(line: string): void {
    this.options.debug?.(scrubProxyCredentials(redact(line, [this.apiKey, ...(this.options.secrets ?? [])]), this.options.proxy));
  }
}
