/**
 * The one loopback test, and the rule for URLs svc sends deliveries to. Only the URL's text is looked
 * at: nothing is resolved or connected here, so a refusal happens before any connection.
 */
import { UsageError } from './errors.js';

/**
 * A host name or literal address (as in a URL or a Host header, without the port) that names this
 * machine: `localhost` (also with a trailing dot), `127.x.x.x`, `[::1]` (and `::1` as Node reports it),
 * an IPv4-mapped 127.x in brackets. The CLI, the sandbox's guards and the proxy bypass all ask this one.
 */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return (
    name === 'localhost' ||
    name === '[::1]' ||
    name === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name) ||
    /^\[::ffff:(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|7f[0-9a-f]{2}:[0-9a-f]{1,4})\]$/.test(name)
  );
}

/** A peer address as node:net reports it (`127.0.0.1`, `::1`, `::ffff:127.0.0.1`). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(address);
}

/**
 * A URL svc POSTs events or deliveries to (`--forward-to`, `webhooks replay --to`): https://
 * anywhere, plain http:// only to a loopback host (events carry players' records; they never cross a
 * network unencrypted, and never reach 169.254.169.254 or a private address in clear), no user name
 * or password. Returns the URL as text.
 */
export function deliveryUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${source}: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${source}: must be an https:// URL (or http:// to a loopback host), got ${url.protocol}`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`${source}: plain http:// only to a loopback host (127.0.0.1, ::1, localhost); use https:// for ${url.hostname}`);
  }
  if (url.username || url.password) throw new UsageError(`${source}: must not carry a user name or password`);
  return url.toString();
}
