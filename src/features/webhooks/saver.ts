/**
 * `webhooks listen --save-dir`: each delivery kept as a JSON file (receivedAt, headers, raw body,
 * verdict). Saved files keep the credentials a sender may carry (Authorization, Proxy-Authorization,
 * Cookie) as `[redacted]`, are created exclusively and never through a link: a name already taken
 * (a file, a link planted there, anything) gets the next free name, as a repeated id does.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { createIfFree } from '../../core/safe-file.js';
import type { Delivery, Verdict } from './delivery.js';

/** Numbered names tried for one delivery before a random suffix is taken instead. */
const NUMBERED_TRIES = 100;
/** How many file names' next number is remembered (oldest forgotten first). */
const REMEMBERED_NAMES = 10_000;

/**
 * A file name from an untrusted event id: letters, digits, `_`, `-`, `.` kept, anything else `_`,
 * at most 100 characters, never starting with a dot (no `..`, no hidden file, no path separator).
 * Empty when nothing usable is left.
 */
export function fileNameFor(id: string): string {
  const safe = id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100).replace(/^\.+/, '');
  return /[A-Za-z0-9]/.test(safe) ? safe : '';
}

/**
 * Saves deliveries in one directory: `<id>.json`, never over anything there; a taken name (a
 * redelivery, a forgery reusing a real id, a file or link planted there) gets `<id>.2.json`,
 * `<id>.3.json`, …, and after NUMBERED_TRIES taken names `<id>.<random>.json`. A delivery without a
 * usable id gets `delivery-<time>-<random>.json`. The next number of each name is remembered, so a
 * thousand repeats of one id cost a thousand opens, not half a million.
 */
export class Saver {
  private readonly next = new Map<string, number>();

  constructor(private readonly dir: string) {}

  /** Writes the delivery; resolves with the file's name, rejects when it could not be written. */
  async save(delivery: Delivery, verdict: Verdict): Promise<string> {
    const content = `${JSON.stringify(savedRecord(delivery, verdict), null, 2)}\n`;
    const base = fileNameFor(delivery.id) || `delivery-${delivery.receivedAt.replace(/[:.]/g, '-')}-${random()}`;
    const first = this.next.get(base) ?? 1;
    for (let n = first; n < first + NUMBERED_TRIES; n++) {
      const name = `${base}${n === 1 ? '' : `.${n}`}.json`;
      if (await this.write(name, content)) {
        this.remember(base, n + 1);
        return name;
      }
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      const name = `${base}.${random()}.json`;
      if (await this.write(name, content)) return name;
    }
    throw new Error(`no free file name for ${base}`);
  }

  /** Whether the name was free (and now holds `content`). */
  private async write(name: string, content: string): Promise<boolean> {
    const file = await createIfFree(join(this.dir, name));
    if (file === undefined) return false;
    try {
      await file.writeFile(content);
    } finally {
      await file.close();
    }
    return true;
  }

  private remember(base: string, next: number): void {
    this.next.delete(base);
    this.next.set(base, next);
    if (this.next.size > REMEMBERED_NAMES) this.next.delete(this.next.keys().next().value!);
  }
}

function random(): string {
  return randomBytes(4).toString('hex');
}

function savedRecord(delivery: Delivery, verdict: Verdict): object {
  const text = delivery.body.toString('utf8');
  return {
    receivedAt: delivery.receivedAt,
    headers: savedHeaders(delivery.headers),
    body: text,
    // The text is exact unless the bytes are not UTF-8; then the bytes themselves are kept too.
    ...(Buffer.from(text, 'utf8').equals(delivery.body) ? {} : { bodyBase64: delivery.body.toString('base64') }),
    verdict: verdict.ok
      ? { valid: true, status: verdict.status, ...(verdict.duplicate ? { duplicate: true } : {}) }
      : { valid: false, status: verdict.status, reason: verdict.error, detail: verdict.detail },
  };
}

/** Credentials a sender (or a proxy) may carry: saved as `[redacted]`, never in clear. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

/** The request's headers as saved: every one kept, the values of credentials replaced. */
export function savedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  // Defined, not assigned: a header a sender names `__proto__` is saved as a header like any other.
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, CREDENTIAL_HEADERS.has(name.toLowerCase()) ? (Array.isArray(value) ? value.map(() => '[redacted]') : '[redacted]') : value]),
  ) as IncomingHttpHeaders;
}
