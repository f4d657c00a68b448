/**
 * `webhooks listen --save-dir`: each delivery kept as a JSON file (receivedAt, headers, raw body,
 * verdict). Saved files keep the credentials a sender may carry (Authorization, Proxy-Authorization,
 * Cookie) as `[redacted]`, are created exclusively and never through a link.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import type { Context } from '../../app/context.js';
import { createExclusive } from '../../core/safe-file.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import type { Delivery, Verdict } from './delivery.js';

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
 * Writes `<id>.json` in the save directory, never over an existing file: a repeated id (a redelivery,
 * or a forgery reusing a real id) gets `<id>.2.json`, `<id>.3.json`, … A delivery without a usable id
 * gets `delivery-<time>-<random>.json`.
 */
export async function save(ctx: Context, dir: string, delivery: Delivery, verdict: Verdict): Promise<void> {
  const content = `${JSON.stringify(savedRecord(delivery, verdict), null, 2)}\n`;
  const base = fileNameFor(delivery.id) || `delivery-${delivery.receivedAt.replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}`;
  for (let n = 1; n < 10_000; n++) {
    const name = `${base}${n === 1 ? '' : `.${n}`}.json`;
    try {
      // Exclusive (never over a file, never through a link: a link there is refused, exit 2).
      const file = await createExclusive(join(dir, name));
      try {
        await file.writeFile(content);
      } finally {
        await file.close();
      }
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  ctx.io.info(`could not save delivery ${terminalSafeLine(delivery.id)}: too many files with that name`);
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
