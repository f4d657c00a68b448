/**
 * `--since TIME|DURATION` and the API's timestamps, in one place (events tail and inspect).
 *
 * The API writes timestamps with six decimals (`2026-11-21T10:00:00.123456Z`); a JS Date keeps
 * milliseconds only, so times are compared as whole microseconds since the epoch (exact in a
 * double until the year 2255).
 */
import { UsageError } from './errors.js';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };
const DURATION = /^(?:\d+[smhdw])+$/;
// A date, or a date and time with seconds optional, fraction up to nine digits, and a zone.
const ISO = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2}))?$/i;

/** Microseconds since the epoch of an ISO 8601 time, or undefined when it is not one. */
export function parseTimestamp(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = ISO.exec(text.trim());
  if (!match) return undefined;
  const [, date, clock, fraction = '', zone] = match;
  const ms = Date.parse(clock === undefined ? `${date}T00:00:00Z` : `${date}T${clock.length === 5 ? `${clock}:00` : clock}${zone.toUpperCase() === 'Z' ? 'Z' : normalizeZone(zone)}`);
  if (Number.isNaN(ms)) return undefined;
  return ms * 1000 + Number(fraction.padEnd(6, '0').slice(0, 6));
}

/** `15m`, `2h`, `7d`, `1h30m` (s, m, h, d, w) as seconds, or undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const value = text.trim().toLowerCase();
  if (!DURATION.test(value)) return undefined;
  let seconds = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+)([smhdw])/g)) seconds += Number(amount) * UNIT_SECONDS[unit];
  return Number.isSafeInteger(seconds) ? seconds : undefined;
}

/**
 * `--since`: a duration back from `nowMs`, or an ISO time (a date alone is midnight UTC; a time
 * needs its zone, `Z` or `+02:00`, so it means the same everywhere). Returns epoch microseconds.
 */
export function parseSince(text: string | undefined, nowMs: number, flag = '--since'): number | undefined {
  if (text === undefined) return undefined;
  const seconds = parseDuration(text);
  if (seconds !== undefined) return (nowMs - seconds * 1000) * 1000;
  const at = parseTimestamp(text);
  if (at !== undefined) return at;
  throw new UsageError(`${flag}: expected a duration such as 15m, 2h or 7d, or an ISO time such as 2026-11-21T10:00:00Z, got ${JSON.stringify(text)}`);
}

function normalizeZone(zone: string): string {
  return zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
}

/** Epoch microseconds (whole) as the API writes times: `2026-11-21T10:00:00.123456Z`. The sandbox writes its times with it too. */
export function formatMicros(micros: number): string {
  const wholeSeconds = Math.floor(micros / 1_000_000);
  const fraction = String(micros - wholeSeconds * 1_000_000).padStart(6, '0');
  return `${new Date(wholeSeconds * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

/** `2026-11-21T10:00:00.123456Z` to the second, `2026-11-21T10:00:00Z`, for narrow views; other text as it is. */
export function toTheSecond(time: string): string {
  return time.replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.\d+(Z|[+-]\d{2}:?\d{2})$/i, '$1$2');
}
