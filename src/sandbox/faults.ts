import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiProblem, rateLimited } from './errors.js';
import type { FieldErrors } from './validate.js';
import { isPlainObject } from './validate.js';

/**
 * Faults injected into /v1 calls, set by `--faults SPEC` or admin `PUT /faults`.
 * SPEC is comma-separated `name=value` pairs with the same names as the admin body, for example
 * `errorRate=0.1,resetRate=0.05,rateLimitRate=0.05,delayMs=200`; names left out are 0.
 * - errorRate: share of calls answered 500 (a problem document; one in four as an HTML 502 from a "proxy")
 * - resetRate: share of calls whose connection is destroyed, half before and half after the call ran
 * - rateLimitRate: share of calls answered 429 rate_limited with Retry-After: 1
 * - delayMs: wait before each call is handled (after its Idempotency-Key is taken)
 */
export interface Faults {
  errorRate: number;
  resetRate: number;
  rateLimitRate: number;
  delayMs: number;
}

export const NO_FAULTS: Faults = { errorRate: 0, resetRate: 0, rateLimitRate: 0, delayMs: 0 };

/** The longest delay a timer can wait (2^31 − 1 ms, about 24.8 days); a longer one would fire at once. */
export const MAX_DELAY_MS = 2 ** 31 - 1;

const RATE_NAMES = ['errorRate', 'resetRate', 'rateLimitRate'] as const;

export type FaultDecision = 'none' | 'error' | 'badGateway' | 'resetBefore' | 'resetAfter' | 'rateLimited';

export function parseFaultSpec(spec: string): Faults {
  const faults: Faults = { ...NO_FAULTS };
  for (const pair of spec.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const [name, value, extra] = pair.split('=');
    const number = Number(value);
    if (extra !== undefined || value === undefined || value.trim() === '' || !Number.isFinite(number)) {
      throw new Error(`--faults: "${pair}" is not name=number`);
    }
    if ((RATE_NAMES as readonly string[]).includes(name)) {
      if (number < 0 || number > 1) throw new Error(`--faults: ${name} must be between 0 and 1`);
    } else if (name === 'delayMs') {
      if (number < 0 || number > MAX_DELAY_MS) throw new Error(`--faults: delayMs must be from 0 to ${MAX_DELAY_MS}`);
    } else {
      throw new Error(`--faults: unknown fault "${name}" (use errorRate, resetRate, rateLimitRate, delayMs)`);
    }
    faults[name as keyof Faults] = number;
  }
  return faults;
}

/** The admin PUT /faults body: every member optional, a missing one is 0. */
export function readFaultsBody(body: unknown, errors: FieldErrors): Faults {
  const faults: Faults = { ...NO_FAULTS };
  if (!isPlainObject(body)) {
    errors.add('body', 'invalid', 'The body must be a JSON object.');
    return faults;
  }
  for (const name of [...RATE_NAMES, 'delayMs'] as const) {
    const value = body[name];
    if (value === undefined || value === null) continue;
    const max = name === 'delayMs' ? MAX_DELAY_MS : 1;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) {
      errors.add(name, 'invalid', name === 'delayMs' ? `delayMs must be a number of milliseconds from 0 to ${MAX_DELAY_MS}.` : `${name} must be a number from 0 to 1.`);
      continue;
    }
    faults[name] = value;
  }
  return faults;
}

/** Draws the fault for one call. */
export function decideFault(faults: Faults, random: () => number): FaultDecision {
  if (random() < faults.rateLimitRate) return 'rateLimited';
  if (random() < faults.errorRate) return random() < 0.25 ? 'badGateway' : 'error';
  if (random() < faults.resetRate) return random() < 0.5 ? 'resetBefore' : 'resetAfter';
  return 'none';
}

/**
 * Acts on a fault that strikes before the call runs: throws the problem to answer, or answers (or
 * drops the connection) itself and returns true. Returns false when the call should go ahead.
 */
export function answerFaultBeforeCall(fault: FaultDecision, req: IncomingMessage, res: ServerResponse): boolean {
  switch (fault) {
    case 'rateLimited':
      throw rateLimited('Too many requests (injected fault); retry after 1 s.', 1);
    case 'error':
      throw new ApiProblem(500, 'internal_error', 'An injected server error; retry with the same Idempotency-Key.');
    case 'badGateway':
      // What a proxy in front of the API would send: HTML, not a problem document.
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      return true;
    case 'resetBefore':
      req.socket.destroy();
      return true;
    default:
      return false;
  }
}
