import { API_LIMITS } from '../api/types.js';
import { createHash } from 'node:crypto';
import { MICROS_PER_DAY, type VirtualClock } from './clock.js';
import { ApiProblem } from './errors.js';
import type { IdempotencyMode } from './router.js';
import { canonicalJson } from '../core/canonical-json.js';

const RETENTION_MICROS = 7 * MICROS_PER_DAY;
const MAX_KEY_LENGTH = API_LIMITS.idempotencyKey;

export interface StoredResponse {
  status: number;
  body: string;
}

interface Entry {
  fingerprint: string;
  createdAt: number;
  /** null while the first request with this key is still running. */
  response: StoredResponse | null;
}

/** "Same request" = same method, path, query and JSON content. */
export function requestFingerprint(method: string, path: string, query: URLSearchParams, body: unknown): string {
  const params = [...query.entries()].sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return createHash('sha256')
    .update(`${method}\n${path}\n${JSON.stringify(params)}\n${body === undefined ? '' : canonicalJson(body)}`)
    .digest('hex');
}

/**
 * The Idempotency-Key a route reads: 400 when a required one is missing or any is too long; undefined
 * when the route does not read it or an optional one is absent.
 */
export function readIdempotencyKey(header: string | string[] | undefined, mode: IdempotencyMode): string | undefined {
  if (mode !== 'required' && mode !== 'optional') return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') {
    if (mode === 'required') {
      throw new ApiProblem(400, 'idempotency_key_required', 'This call needs an Idempotency-Key header (a fresh UUID per operation).');
    }
    return undefined;
  }
  if (value.length > MAX_KEY_LENGTH) {
    throw new ApiProblem(400, 'idempotency_key_invalid', `The Idempotency-Key is longer than ${MAX_KEY_LENGTH} characters.`);
  }
  return value;
}

/** The first call with a key runs; it must end with `finish` (its response) or `abandon` (it threw). */
export interface IdempotentRun {
  finish(response: StoredResponse): void;
  abandon(): void;
}

export type IdempotencyResult = { replay: StoredResponse } | { run: IdempotentRun };

/** Idempotency keys per API key, kept 7 days on the virtual clock; only 2xx responses are stored. */
export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly clock: VirtualClock) {}

  begin(keyName: string, idempotencyKey: string, fingerprint: string): IdempotencyResult {
    const id = `${keyName}\n${idempotencyKey}`;
    const now = this.clock.now();
    const existing = this.entries.get(id);
    if (existing !== undefined && existing.createdAt + RETENTION_MICROS > now) {
      if (existing.fingerprint !== fingerprint) {
        throw new ApiProblem(422, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request.');
      }
      if (existing.response === null) {
        throw new ApiProblem(409, 'idempotency_request_in_progress', 'A request with this Idempotency-Key is still running; retry in a few seconds.');
      }
      return { replay: existing.response };
    }
    const entry: Entry = { fingerprint, createdAt: now, response: null };
    this.entries.set(id, entry);
    // Only a success is kept for replay: after a refusal or a failure the same key may be tried again.
    const abandon = (): void => void this.entries.delete(id);
    return {
      run: {
        finish: (response) => {
          if (response.status >= 200 && response.status < 300) entry.response = response;
          else abandon();
        },
        abandon,
      },
    };
  }

  /** Forgets keys older than 7 days. */
  prune(): void {
    const cutoff = this.clock.now() - RETENTION_MICROS;
    for (const [id, entry] of this.entries) {
      if (entry.createdAt <= cutoff && entry.response !== null) this.entries.delete(id);
    }
  }
}
