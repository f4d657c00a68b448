/**
 * Why a signature does not verify. Support sees the same few mistakes again and again, so instead
 * of guessing we re-sign the delivery with each known mistake applied (to the body, the secret, the
 * timestamp) and report the variant whose signature is in the header. Secrets are never reported,
 * only where a matching one came from.
 */
import { hmacHex, type Verification } from './signature.js';

export type CauseCode =
  | 'body_not_json'
  | 'body_truncated'
  | 'keys_reordered'
  | 'body_reserialized'
  | 'whitespace_changed'
  | 'trailing_newline_added'
  | 'trailing_newline_lost'
  | 'line_endings_changed'
  | 'secret_hex_decoded'
  | 'secret_whitespace'
  | 'wrong_secret'
  | 'timestamp_milliseconds'
  | 'signed_without_timestamp'
  | 'stale_timestamp'
  | 'future_timestamp';

export interface Cause {
  code: CauseCode;
  message: string;
  /** for wrong_secret: where the secret that matches is stored (e.g. `profile staging`) */
  secretSource?: string;
}

/** A secret the user has elsewhere (another profile, the environment), labelled by where it lives. */
export interface KnownSecret {
  source: string;
  secret: string;
}

export interface DiagnoseInput {
  verification: Verification;
  payload: Buffer;
  secret: string;
  /** other secrets to try for "wrong secret"; the one in use may be among them */
  otherSecrets?: KnownSecret[];
  /**
   * Stop trying mistakes at this `performance.now()` time (a receiver bounds what one forged delivery
   * can cost); the causes found so far are returned, none when the budget ran out first.
   */
  deadline?: number;
}

/** One way the sender's signing input may have differed from ours; `cause` undefined means unchanged. */
interface Variant<T> {
  value: T;
  cause?: Cause;
}

const MILLISECOND_DIGITS = 13;
const YEAR_SECONDS = 366 * 24 * 3600;

/**
 * Likely causes, most specific first; empty when nothing known explains the failure. When no known
 * mistake re-creates the signature, what the body itself shows (not JSON, cut short, members
 * reordered, its layout changed) is named: a changed body is checked before the secret is blamed.
 */
export function diagnose(input: DiagnoseInput): Cause[] {
  const { verification } = input;
  const causes: Cause[] = timestampCauses(verification);
  const timestamp = verification.header.timestamp;
  if (timestamp !== null && verification.header.signatures.length > 0 && !verification.signatureMatches) {
    const found = signatureCauses(input, timestamp);
    causes.push(...(found.length > 0 ? found : bodyEvidence(input.payload)));
  }
  // A millisecond t explains both the skew and a mismatch found by dividing it; say it once.
  return causes.filter((cause, index) => causes.findIndex((other) => other.code === cause.code) === index);
}

function timestampCauses(verification: Verification): Cause[] {
  if (verification.reason !== 'timestamp_outside_tolerance' || verification.skewSeconds === null) return [];
  if (looksLikeMilliseconds(verification)) {
    return [{ code: 'timestamp_milliseconds', message: 't looks like unix milliseconds; the scheme uses unix seconds' }];
  }
  const seconds = Math.abs(verification.skewSeconds);
  return verification.skewSeconds < 0
    ? [{ code: 'stale_timestamp', message: `signed ${seconds}s ago: a replayed or late delivery, or the receiver's clock is ahead` }]
    : [{ code: 'future_timestamp', message: `signed ${seconds}s in the future: the sender's clock is ahead or the receiver's behind` }];
}

/** A t of 13 digits or so that, read as milliseconds, lands within a year of the receiver's clock. */
function looksLikeMilliseconds(verification: Verification): boolean {
  const timestamp = verification.header.timestamp!;
  if (timestamp.length < MILLISECOND_DIGITS || verification.timestamp === null || verification.skewSeconds === null) return false;
  const now = verification.timestamp - verification.skewSeconds;
  return Math.abs(verification.timestamp / 1000 - now) <= YEAR_SECONDS;
}

/** Tries every combination of mistakes, fewest mistakes first, and returns the causes of the first match. */
function signatureCauses(input: DiagnoseInput, timestamp: string): Cause[] {
  const wanted = new Set(input.verification.header.signatures);
  const prefixes = prefixVariants(timestamp);
  const bodies = payloadVariants(input.payload);
  const keys = secretVariants(input.secret, input.otherSecrets ?? []);
  const combinations: { causes: Cause[]; run: () => string }[] = [];
  for (const prefix of prefixes) {
    for (const body of bodies) {
      for (const key of keys) {
        const causes = [prefix.cause, body.cause, key.cause].filter((cause): cause is Cause => cause !== undefined);
        if (causes.length > 0) combinations.push({ causes, run: () => hmacHex(key.value, prefix.value, body.value) });
      }
    }
  }
  combinations.sort((a, b) => a.causes.length - b.causes.length);
  // Signatures are not secret; a plain set lookup is fine here (the verdict itself used constant time).
  // Only the cause is ever reported, never a signature computed here (that would be a signing oracle).
  const deadline = input.deadline ?? Infinity;
  for (const combination of combinations) {
    if (performance.now() > deadline) return [];
    if (wanted.has(combination.run())) return combination.causes;
  }
  return [];
}

/** The members of an event in the order the service writes them. */
const EVENT_ORDER = ['id', 'type', 'occurredAt', 'environment', 'data'];
const VERIFY_RAW = 'verify the raw bytes as received, before any parsing or saving';

/**
 * What the body shows of a change on its way, without a signature to prove it: the service signs and
 * sends one event as compact JSON (members in the order id, type, occurredAt, environment, data), with
 * no line end after it.
 */
export function bodyEvidence(payload: Buffer): Cause[] {
  const text = payload.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    if (text.trim() === '') return [{ code: 'body_not_json', message: 'the body is empty; the sender signed a JSON event: is this the delivery\'s body?' }];
    if (endsInsideJson(text)) {
      return [{ code: 'body_truncated', message: `the body stops in the middle of its JSON after ${payload.length} bytes: it was cut short (a size limit, or a read that stopped early); the sender signed the whole event` }];
    }
    const at = /position (\d+)/.exec((error as Error).message)?.[1];
    return [{ code: 'body_not_json', message: `the body is not valid JSON${at === undefined ? '' : ` (at character ${at})`}: the sender signed a JSON event, so the bytes were changed on the way, or this is not the delivery's body` }];
  }
  const causes: Cause[] = [];
  const keys = isPlainObject(parsed) ? Object.keys(parsed) : [];
  const known = keys.filter((key) => EVENT_ORDER.includes(key));
  const expected = EVENT_ORDER.filter((key) => known.includes(key));
  if (keys.includes('id') && keys.includes('type') && known.join() !== expected.join()) {
    const sorted = keys.join() === [...keys].sort().join();
    causes.push({
      code: 'keys_reordered',
      message: `the event's members are in another order (${known.join(', ')}${sorted ? ': alphabetical, as jq -S or sort_keys=True write them' : ''}); the sender signed them as ${expected.join(', ')}: ${VERIFY_RAW}`,
    });
  }
  const withoutLineEnd = text.replace(/\r?\n$/, '');
  if (withoutLineEnd !== JSON.stringify(parsed)) {
    causes.push({ code: 'whitespace_changed', message: `the body is not laid out as compact JSON (whitespace between its members, or characters escaped differently); the sender signs compact JSON: ${VERIFY_RAW}` });
  }
  if (withoutLineEnd !== text) {
    causes.push({ code: 'trailing_newline_added', message: 'the body ends with a line end; the sender signs the event without one (added when saving or reading it)' });
  }
  return causes;
}

/** Whether JSON text ends inside a string or with an object or array still open (and is otherwise well nested). */
function endsInsideJson(text: string): boolean {
  const open: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '{' || char === '[') {
      open.push(char === '{' ? '}' : ']');
    } else if (char === '}' || char === ']') {
      if (open.pop() !== char) return false;
      if (open.length === 0 && text.slice(i + 1).trim() !== '') return false;
    }
  }
  return inString || open.length > 0;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function prefixVariants(timestamp: string): Variant<string>[] {
  const variants: Variant<string>[] = [
    { value: `${timestamp}.` },
    {
      value: `${timestamp}000.`,
      cause: { code: 'timestamp_milliseconds', message: 'the sender signed the time in milliseconds but wrote seconds in t' },
    },
    { value: '', cause: { code: 'signed_without_timestamp', message: 'the sender signed the body alone, without "<t>."' } },
  ];
  if (timestamp.length >= MILLISECOND_DIGITS) {
    variants.push({
      value: `${timestamp.slice(0, -3)}.`,
      cause: { code: 'timestamp_milliseconds', message: 't is in milliseconds but the signature was made over seconds' },
    });
  }
  return variants;
}

function payloadVariants(payload: Buffer): Variant<Buffer>[] {
  const text = payload.toString('utf8');
  const variants: Variant<string>[] = [];
  const add = (value: string, code: CauseCode, message: string) => variants.push({ value, cause: { code, message } });

  add(`${text}\n`, 'trailing_newline_lost', 'the body lost a trailing newline that the sender signed');
  add(`${text}\r\n`, 'trailing_newline_lost', 'the body lost a trailing CRLF that the sender signed');
  if (/\r?\n$/.test(text)) {
    add(text.replace(/\r?\n$/, ''), 'trailing_newline_added', 'the body ends with a newline the sender did not sign (added when saving or reading it)');
  }
  if (text.includes('\r\n')) add(text.replace(/\r\n/g, '\n'), 'line_endings_changed', 'the body has CRLF line ends; the sender signed LF');
  if (/(^|[^\r])\n/.test(text)) add(text.replace(/\r?\n/g, '\r\n'), 'line_endings_changed', 'the body has LF line ends; the sender signed CRLF');
  if (text.trim() !== text) add(text.trim(), 'whitespace_changed', 'whitespace was added around the body');
  for (const [label, serialised] of reserialisations(text)) {
    add(serialised, 'body_reserialized', `the body was re-serialised: its whitespace or formatting differs from what the sender signed (${label}); verify the raw bytes as received, before any JSON parsing`);
  }
  const seen = new Set([text]);
  const distinct = variants.filter((variant) => !seen.has(variant.value) && seen.add(variant.value));
  return [{ value: payload }, ...distinct.map((variant) => ({ value: Buffer.from(variant.value, 'utf8'), cause: variant.cause }))];
}

function reserialisations(text: string): [string, string][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const compact = JSON.stringify(parsed);
  const forms: [string, string][] = [
    ['compact JSON', compact],
    ['JSON indented by 2 spaces', JSON.stringify(parsed, null, 2)],
    ['JSON indented by 4 spaces', JSON.stringify(parsed, null, 4)],
    ['JSON indented by tabs', JSON.stringify(parsed, null, '\t')],
    // Python's json.dumps: ", " and ": " separators, non-ASCII escaped as \uXXXX.
    ['JSON with ", " and ": " separators (Python\'s json.dumps)', asciiEscaped(spacedSeparators(compact))],
    ['JSON with ", " and ": " separators', spacedSeparators(compact)],
    ['compact JSON with non-ASCII escaped', asciiEscaped(compact)],
  ];
  // Senders often end a body with a newline; the re-serialised copy may have lost or gained it.
  return forms.flatMap(([label, body]): [string, string][] => [
    [label, body],
    [`${label} followed by a newline`, `${body}\n`],
  ]);
}

/** Whitespace a secret picks up on its way into a sender's config: line ends, pasted spaces, tabs. */
const SECRET_PADDING: [string, string][] = [
  ['', '\n'],
  ['', '\r\n'],
  ['', '\r'],
  ['', ' '],
  ['', '\t'],
  ['', ' \n'],
  [' ', ''],
  ['\t', ''],
  ['\n', ''],
  [' ', ' '],
  [' ', '\n'],
  ['\n', '\n'],
];

/** Compact JSON with a space after each `,` and `:` outside strings. */
function spacedSeparators(compact: string): string {
  return compact.replace(/"(?:[^"\\]|\\.)*"|[,:]/g, (token) => (token === ',' || token === ':' ? `${token} ` : token));
}

/** Every character above U+007F written as \uXXXX (surrogate pairs as two escapes), as ASCII-only encoders do. */
function asciiEscaped(json: string): string {
  return json.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function secretVariants(secret: string, others: readonly KnownSecret[]): Variant<Buffer>[] {
  const variants: Variant<Buffer>[] = [{ value: Buffer.from(secret, 'utf8') }];
  const trimmed = secret.trim();
  if (trimmed !== secret) {
    variants.push({ value: Buffer.from(trimmed, 'utf8'), cause: { code: 'secret_whitespace', message: 'the secret you gave carries whitespace (a newline or spaces); the sender used it without' } });
  }
  for (const [prefix, suffix] of SECRET_PADDING) {
    const where = [prefix && `a leading ${JSON.stringify(prefix)}`, suffix && `a trailing ${JSON.stringify(suffix)}`].filter(Boolean).join(' and ');
    variants.push({
      value: Buffer.from(prefix + trimmed + suffix, 'utf8'),
      cause: { code: 'secret_whitespace', message: `the sender's secret carried ${where} (read from a file or an env var with a line end, or pasted with spaces)` },
    });
  }
  if (/^([0-9a-fA-F]{2})+$/.test(trimmed)) {
    variants.push({
      value: Buffer.from(trimmed, 'hex'),
      cause: { code: 'secret_hex_decoded', message: 'the sender hex-decoded the secret; the HMAC key is the secret\'s text bytes, not decoded' },
    });
  }
  const seen = new Set([secret, trimmed]);
  for (const other of others) {
    if (seen.has(other.secret)) continue;
    seen.add(other.secret);
    variants.push({
      value: Buffer.from(other.secret, 'utf8'),
      cause: { code: 'wrong_secret', message: `wrong secret: the signature matches the webhook secret of ${other.source}`, secretSource: other.source },
    });
  }
  return variants;
}
