import http from 'node:http';
import https from 'node:https';
import type { DeliveryRecord } from '../api/delivery-record.js';
import { onAbort } from '../core/abort.js';
import { signatureHeader } from '../core/signature.js';
import { MICROS_PER_SECOND, formatTimestamp } from './clock.js';
import type { ApiKeyRecord, StoredEvent } from './models.js';
import type { SandboxState } from './store.js';

const CONNECT_TIMEOUT_MS = 5_000;
const RESPONSE_TIMEOUT_MS = 10_000;
/** Waits before attempts 2 to 8 (openapi/openapi.yaml: 1 m, 5 m, 30 m, 1 h, 3 h, 6 h, 12 h). */
const RETRY_DELAYS_SECONDS = [60, 300, 1_800, 3_600, 10_800, 21_600, 43_200];
const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

export interface WebhookResult {
  responseStatus: number | null;
  error: string | null;
}

/**
 * One signed POST of a webhook body: 5 s to connect, then 10 s for the whole response. The
 * signature's `t` is real Unix time, because receivers check it against their own clocks.
 */
function sendWebhook(url: string, secret: string, eventId: string, body: string, signal?: AbortSignal): Promise<WebhookResult> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ responseStatus: null, error: `the webhook URL ${url} is not a valid URL` });
      return;
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const transport = target.protocol === 'https:' ? https : http;
    let settled = false;
    let responseTimer: NodeJS.Timeout | undefined;
    /** unregisters the stop below from `signal` (which lives as long as the sandbox) */
    let release = (): void => undefined;
    const finish = (result: WebhookResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(responseTimer);
      release();
      resolve(result);
    };
    const request = transport.request(target, {
      method: 'POST',
      agent: false,
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'Svc-Event-Id': eventId,
        'Svc-Signature': signatureHeader(secret, timestamp, body),
        'User-Agent': 'svc-sandbox-webhooks',
      },
    });
    const connectTimer = setTimeout(() => {
      finish({ responseStatus: null, error: `could not reach ${url}: no connection within 5 s` });
      request.destroy();
    }, CONNECT_TIMEOUT_MS);
    request.on('socket', (socket) => {
      socket.once('connect', () => {
        clearTimeout(connectTimer);
        responseTimer = setTimeout(() => {
          finish({ responseStatus: null, error: `${url} did not respond within 10 s` });
          request.destroy();
        }, RESPONSE_TIMEOUT_MS);
      });
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      response.resume();
      const done = (): void =>
        finish({ responseStatus: status, error: status >= 200 && status < 300 ? null : `the receiver answered HTTP ${status}` });
      response.on('end', done);
      response.on('error', done);
    });
    request.on('error', (err) => finish({ responseStatus: null, error: `could not reach ${url}: ${err.message}` }));
    const stop = (): void => {
      finish({ responseStatus: null, error: 'the sandbox stopped before the receiver answered' });
      request.destroy();
    };
    if (signal?.aborted) stop();
    else if (signal !== undefined) release = onAbort(signal, stop);
    request.end(body);
  });
}

interface PendingDelivery {
  event: StoredEvent;
  keyName: string;
  attempt: number;
  dueAt: number;
  inFlight: boolean;
}

/**
 * Webhook delivery, separate from request handling: each recorded event is queued for every key
 * that should receive it, attempted at once, and retried on the virtual clock. While API access
 * is off nothing is sent; due deliveries go out when it returns.
 */
export class WebhookQueue {
  private pending: PendingDelivery[] = [];
  readonly records: DeliveryRecord[] = [];
  /** The body each delivered event (or ping) was sent with, by event id (the workspace shows it). */
  readonly bodies = new Map<string, string>();
  /** Aborts attempts in flight when the sandbox stops. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly state: SandboxState,
    private readonly log: (line: string) => void,
  ) {
    state.onEvent = (event) => this.enqueue(event);
  }

  /** Routing rules: keys that may see the event, have a URL, and did not make the change themselves. */
  private enqueue(event: StoredEvent): void {
    const dueAt = this.state.clock.now();
    for (const key of this.state.keys) {
      if (key.revoked || key.webhookUrl === null || key.name === event.actorKey) continue;
      if (!this.state.keyMaySee(key, event)) continue;
      this.pending.push({ event, keyName: key.name, attempt: 1, dueAt, inFlight: false });
    }
    setImmediate(() => void this.runDue());
  }

  /** Attempts every due delivery and resolves when those attempts have finished. */
  async runDue(): Promise<void> {
    if (this.stopping.signal.aborted || !this.state.tenant.apiAccess) return;
    const now = this.state.clock.now();
    const due = this.pending.filter((d) => !d.inFlight && d.dueAt <= now);
    await Promise.all(due.map((delivery) => this.attempt(delivery)));
  }

  /**
   * Each attempt, the first and every retry, re-applies the routing rules to the key as it is now:
   * a key revoked, without a webhook URL, or no longer allowed the event (its scope or its brand
   * removed) gets no more attempts of it.
   */
  private async attempt(delivery: PendingDelivery): Promise<void> {
    const key = this.state.keyByName(delivery.keyName);
    if (key === undefined || key.revoked || key.webhookUrl === null || !this.state.keyMaySee(key, delivery.event)) {
      this.drop(delivery);
      return;
    }
    delivery.inFlight = true;
    const url = key.webhookUrl;
    const result = await sendWebhook(url, key.webhookSecret, delivery.event.id, delivery.event.json, this.stopping.signal);
    if (this.stopping.signal.aborted) return;
    delivery.inFlight = false;
    this.note(delivery.event.id, delivery.event.type, key, url, delivery.attempt, result, delivery.event.json);
    if (result.error === null || delivery.attempt >= MAX_ATTEMPTS) {
      this.drop(delivery);
      return;
    }
    delivery.dueAt = this.state.clock.now() + RETRY_DELAYS_SECONDS[delivery.attempt - 1] * MICROS_PER_SECOND;
    delivery.attempt += 1;
  }

  private drop(delivery: PendingDelivery): void {
    this.pending = this.pending.filter((d) => d !== delivery);
  }

  private note(eventId: string, type: string, key: ApiKeyRecord, url: string, attempt: number, result: WebhookResult, body: string): void {
    this.bodies.set(eventId, body);
    this.records.push({
      eventId,
      type,
      keyName: key.name,
      url,
      attempt,
      status: result.responseStatus,
      error: result.error,
      at: formatTimestamp(this.state.clock.now()),
    });
    this.log(`webhook ${type} ${eventId} -> ${key.name} attempt ${attempt}: ${result.error ?? result.responseStatus}`);
  }

  /** POST /webhooks:test: one signed ping now, not queued, not retried, never in the feed. */
  async ping(key: ApiKeyRecord): Promise<WebhookResult> {
    if (key.webhookUrl === null) {
      return { responseStatus: null, error: `the key ${key.name} has no webhook URL; nothing was sent` };
    }
    const id = this.state.newId();
    const body = JSON.stringify({ id, type: 'ping', occurredAt: formatTimestamp(this.state.clock.now()), environment: 'production', data: {} });
    const url = key.webhookUrl;
    const result = await sendWebhook(url, key.webhookSecret, id, body, this.stopping.signal);
    this.note(id, 'ping', key, url, 1, result, body);
    return result;
  }

  close(): void {
    this.stopping.abort();
  }
}
