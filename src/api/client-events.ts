/**
 * What the HTTP core tells its caller while a call runs, as typed events: the caller (the run's
 * Context) decides what a person sees of them. The core never writes a line for people itself.
 */
import type { Outcome } from './retry.js';

export type ClientEvent =
  /** a failed attempt that will be tried again after `waitMs` */
  | { type: 'retry'; method: string; path: string; waitMs: number; outcome: Outcome; retry: number; maxRetries: number }
  /** the service answered with the stored response of an earlier call with this Idempotency-Key */
  | { type: 'replayed'; idempotencyKey: string | undefined }
  /** the proxies requests go through (credentials already left out), once, as the first request is sent */
  | { type: 'proxy'; https?: string; http?: string; noProxy: string }
  /** a call (retries and their waits included) starts or ends: `call` pairs the two */
  | { type: 'wait'; phase: 'start' | 'end'; call: number };

export type ClientEventSink = (event: ClientEvent) => void;

/** The one-line notice a person reads for a retry or a replay; undefined for the other events. */
export function noticeText(event: ClientEvent): string | undefined {
  switch (event.type) {
    case 'retry':
      return `retrying ${event.method} ${event.path} in ${(event.waitMs / 1000).toFixed(1)}s (${describeOutcome(event.outcome)}; retry ${event.retry} of ${event.maxRetries})`;
    case 'replayed':
      return `replayed: the service returned the stored response for Idempotency-Key ${event.idempotencyKey}; nothing ran twice`;
    default:
      return undefined;
  }
}

/** The --debug line naming the proxies. */
export function proxyText(event: Extract<ClientEvent, { type: 'proxy' }>): string {
  const routes = [event.https && `https via ${event.https}`, event.http && `http via ${event.http}`].filter(Boolean).join(', ');
  return `* proxy: ${routes}; not for ${event.noProxy}`;
}

function describeOutcome(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'timeout':
      return 'time-out';
    case 'network':
      return outcome.code;
    case 'response':
      return outcome.code ? `${outcome.status} ${outcome.code}` : String(outcome.status);
  }
}
