import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeSignature, matchesAny, parseSignatureHeader, signatureHeader, verifySignature } from '../../src/core/signature.js';
import { diagnose } from '../../src/core/signature-diagnose.js';
import { secretFromStdin } from '../../src/features/webhook-secret.js';

const SECRET = '3f9a1c0e5b7d2a4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d';
const OTHER_SECRET = 'a'.repeat(64);
const T = 1763719200;
const BODY = '{"id":"0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11","type":"order.sent","data":{"reference":"R-1"}}';

/** An independent signer: node:crypto directly, not the module under test. */
const sign = (secret: string | Buffer, message: string | Buffer) => createHmac('sha256', secret).update(message).digest('hex');
const header = (t: number | string, ...v1: string[]) => [`t=${t}`, ...v1.map((value) => `v1=${value}`)].join(',');
const verify = (headerValue: string, body: string | Buffer = BODY, extra: { secret?: string; now?: number; tolerance?: number } = {}) =>
  verifySignature({
    header: headerValue,
    payload: Buffer.isBuffer(body) ? body : Buffer.from(body),
    secret: extra.secret ?? SECRET,
    now: extra.now ?? T,
    toleranceSeconds: extra.tolerance,
  });

describe('signing', () => {
  // Vectors computed once with: printf '%s' "<t>.<body>" | openssl dgst -sha256 -hmac "<secret>"
  it('matches vectors computed with openssl', () => {
    expect(computeSignature('whsec_test_secret_0123456789abcdef0123456789abcdef0123456789abcdef', 1700000000, '{"id":"evt_1","type":"ping","data":{}}')).toBe(
      '586e82aea87779be88080b21a7f0c3dd1817ed09f4e763235a4b3d8796ce2230',
    );
    expect(computeSignature(SECRET, T, BODY)).toBe('fc43a63dca75d7f3a0fe7f3f5f5bff7bb4afc5fe625ad6a95a79e59ae3920acc');
    expect(computeSignature(SECRET, 1700000000, Buffer.from('line one\r\nline two\n'))).toBe(
      '4bddbb035acad55aa63ffc605396d2bb095c4527f3e841e47325b9d95d88d7aa',
    );
  });

  it('keys the HMAC with the secret text, not its hex decoding, and signs "<t>.<body>"', () => {
    expect(computeSignature(SECRET, T, BODY)).toBe(sign(SECRET, `${T}.${BODY}`));
    expect(computeSignature(SECRET, T, BODY)).not.toBe(sign(Buffer.from(SECRET, 'hex'), `${T}.${BODY}`));
    expect(signatureHeader(SECRET, T, BODY)).toBe(`t=${T},v1=${sign(SECRET, `${T}.${BODY}`)}`);
  });

  it('compares in constant time against every candidate', () => {
    const good = sign(SECRET, 'x');
    expect(matchesAny(good, ['0'.repeat(64), good])).toBe(true);
    expect(matchesAny(good, ['0'.repeat(64)])).toBe(false);
    expect(matchesAny(good, [])).toBe(false);
  });
});

describe('parseSignatureHeader', () => {
  const v1 = sign(SECRET, `${T}.${BODY}`);

  it('reads t, several v1 and ignores other schemes', () => {
    const parsed = parseSignatureHeader(`t=${T},v0=legacy,v1=${'1'.repeat(64)},v1=${v1}`);
    expect(parsed).toEqual({ timestamp: String(T), signatures: ['1'.repeat(64), v1], otherSchemes: ['v0'], unusable: [], problems: [] });
  });

  it('accepts the pairs in any order and trims the value ends', () => {
    expect(parseSignatureHeader(`  v1=${v1},t=${T}\n`).problems).toEqual([]);
  });

  it.each([
    ['', 'the header is empty'],
    ['   ', 'the header is empty'],
    [`v1=${'a'.repeat(64)}`, 't is missing'],
    [`t=abc,v1=${'a'.repeat(64)}`, 't "abc" is not unix seconds (digits only)'],
    [`t=-5,v1=${'a'.repeat(64)}`, 't "-5" is not unix seconds (digits only)'],
    [`t=1.5,v1=${'a'.repeat(64)}`, 't "1.5" is not unix seconds (digits only)'],
    [`t=,v1=${'a'.repeat(64)}`, 't "" is not unix seconds (digits only)'],
    [`t=${T}`, 'no v1 signature'],
    [`t=${T},v0=${'a'.repeat(64)}`, 'no v1 signature'],
    [`t=${T},v1=${'a'.repeat(63)}`, 'v1 "' + 'a'.repeat(63) + '" is not 64 hex digits (63 characters)'],
    [`t=${T},v1=${'g'.repeat(64)}`, 'v1 "' + 'g'.repeat(64) + '" is not 64 hex digits (64 characters)'],
    [`t=${T},t=${T},v1=${'a'.repeat(64)}`, 't appears more than once'],
    [`t=${T},garbage,v1=${'a'.repeat(64)}`, 'pair 2 "garbage" is not name=value'],
    [`t=${T},v1=${'a'.repeat(64)},`, 'pair 3 "" is not name=value'],
    [`t=${T}, v1=${'a'.repeat(64)}`, `pair 2 " v1=${'a'.repeat(64)}" is not name=value`],
    [`t=${T};v1=${'a'.repeat(64)}`, `t "${T};v1=${'a'.repeat(64)}" is not unix seconds (digits only)`],
    [`=x,t=${T},v1=${'a'.repeat(64)}`, 'pair 1 "=x" is not name=value'],
  ])('names a malformed header %j', (value, problem) => {
    const parsed = parseSignatureHeader(value);
    expect(parsed.problems).toContain(problem);
    expect(verify(value).reason).toBe('malformed_header');
  });

  it('passes over a v1 that is not hex when a well-formed one stands beside it', () => {
    const parsed = parseSignatureHeader(`t=${T},v1=zz,v1=${v1}`);
    expect(parsed.problems).toEqual([]);
    expect(parsed.unusable).toEqual(['zz']);
    expect(parsed.signatures).toEqual([v1]);
  });

  it('reads hex digits in either case', () => {
    expect(parseSignatureHeader(`t=${T},v1=${v1.toUpperCase()}`).problems).toEqual([]);
    expect(verify(`t=${T},v1=${v1.toUpperCase()}`).valid).toBe(true);
    expect(verify(`t=${T},v1=zz,v1=${v1}`).valid).toBe(true);
  });

  it('points out a value pasted with the header name', () => {
    expect(parseSignatureHeader(`Svc-Signature: t=${T},v1=${v1}`).problems[0]).toMatch(/header name/);
  });
});

describe('verifySignature', () => {
  const good = sign(SECRET, `${T}.${BODY}`);

  it('accepts a valid signature, also among several v1', () => {
    expect(verify(header(T, good))).toMatchObject({ valid: true, reason: null, skewSeconds: 0, expected: good, signatureMatches: true });
    expect(verify(header(T, '0'.repeat(64), good)).valid).toBe(true);
  });

  it('verifies the raw bytes, not text (a non-UTF-8 body)', () => {
    const body = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const v1 = createHmac('sha256', SECRET).update(`${T}.`).update(body).digest('hex');
    expect(verify(header(T, v1), body).valid).toBe(true);
  });

  it('applies the tolerance in both directions, inclusive at the edge', () => {
    expect(verify(header(T, good), BODY, { now: T + 300 }).valid).toBe(true);
    expect(verify(header(T, good), BODY, { now: T - 300 }).valid).toBe(true);
    expect(verify(header(T, good), BODY, { now: T + 301 })).toMatchObject({ valid: false, reason: 'timestamp_outside_tolerance', skewSeconds: -301, signatureMatches: true });
    expect(verify(header(T, good), BODY, { now: T - 301 })).toMatchObject({ reason: 'timestamp_outside_tolerance', skewSeconds: 301 });
    expect(verify(header(T, good), BODY, { now: T + 20, tolerance: 10 }).reason).toBe('timestamp_outside_tolerance');
    expect(verify(header(T, good), BODY, { now: T + 10, tolerance: 10 }).valid).toBe(true);
    expect(verify(header(T, good), BODY, { now: T + 1, tolerance: 0 }).valid).toBe(false);
  });

  it('rejects a tampered body or another secret', () => {
    expect(verify(header(T, good), BODY.replace('R-1', 'R-2')).reason).toBe('no_matching_signature');
    expect(verify(header(T, good), BODY, { secret: OTHER_SECRET }).reason).toBe('no_matching_signature');
  });

  it('checks the header before the time and the time before the signature', () => {
    expect(verify(`t=${T},v1=${'z'.repeat(64)}`, BODY, { now: T + 9999 }).reason).toBe('malformed_header');
    expect(verify(header(T, '0'.repeat(64)), BODY, { now: T + 9999 }).reason).toBe('timestamp_outside_tolerance');
  });

  it('signs over the t text as written', () => {
    const v1 = sign(SECRET, `0${T}.${BODY}`);
    expect(verify(`t=0${T},v1=${v1}`).valid).toBe(true);
  });
});

describe('diagnose', () => {
  const causesOf = (v1: string, options: { body?: string; t?: number | string; now?: number; secret?: string; others?: { source: string; secret: string }[] } = {}) => {
    const body = Buffer.from(options.body ?? BODY);
    const secret = options.secret ?? SECRET;
    const verification = verifySignature({ header: header(options.t ?? T, v1), payload: body, secret, now: options.now ?? T });
    expect(verification.valid).toBe(false);
    return diagnose({ verification, payload: body, secret, otherSecrets: options.others }).map((cause) => cause.code);
  };
  const pretty = JSON.stringify(JSON.parse(BODY), null, 2);

  it('finds a body re-serialised as pretty JSON', () => {
    expect(causesOf(sign(SECRET, `${T}.${BODY}`), { body: pretty })).toEqual(['body_reserialized']);
    expect(causesOf(sign(SECRET, `${T}.${BODY}`), { body: JSON.stringify(JSON.parse(BODY), null, 4) })).toEqual(['body_reserialized']);
  });

  it('finds a body whose whitespace changed when the sender signed it with a trailing newline', () => {
    expect(causesOf(sign(SECRET, `${T}.${BODY}\n`), { body: `${pretty}\n` })).toEqual(['body_reserialized']);
    expect(causesOf(sign(SECRET, `${T}.${pretty}\n`))).toEqual(['body_reserialized']);
  });

  it('finds a body the sender signed pretty but that arrived compact', () => {
    expect(causesOf(sign(SECRET, `${T}.${pretty}`))).toEqual(['body_reserialized']);
  });

  it('finds a trailing newline added or lost', () => {
    expect(causesOf(sign(SECRET, `${T}.${BODY}`), { body: `${BODY}\n` })).toEqual(['trailing_newline_added']);
    expect(causesOf(sign(SECRET, `${T}.${BODY}\n`))).toEqual(['trailing_newline_lost']);
  });

  it('finds CRLF and LF line ends swapped', () => {
    const lf = 'line one\nline two';
    expect(causesOf(sign(SECRET, `${T}.${lf}`), { body: lf.replace(/\n/g, '\r\n') })).toEqual(['line_endings_changed']);
    expect(causesOf(sign(SECRET, `${T}.${lf.replace(/\n/g, '\r\n')}`), { body: lf })).toEqual(['line_endings_changed']);
  });

  it('finds whitespace added around the body', () => {
    expect(causesOf(sign(SECRET, `${T}.${BODY}`), { body: `  ${BODY}  ` })).toEqual(['whitespace_changed']);
  });

  it('finds a hex-decoded secret', () => {
    expect(causesOf(sign(Buffer.from(SECRET, 'hex'), `${T}.${BODY}`))).toEqual(['secret_hex_decoded']);
  });

  it('finds a secret carrying whitespace, on either side', () => {
    expect(causesOf(sign(`${SECRET}\n`, `${T}.${BODY}`))).toEqual(['secret_whitespace']);
    expect(causesOf(sign(SECRET, `${T}.${BODY}`), { secret: `${SECRET}\n` })).toEqual(['secret_whitespace']);
  });

  // Found by bench/stress-signatures.mjs: only trailing "\n", "\r\n" and " " were tried.
  it.each([' ', '\t', '\n'])('finds a sender secret with leading %j', (pad) => {
    expect(causesOf(sign(`${pad}${SECRET}`, `${T}.${BODY}`))).toEqual(['secret_whitespace']);
  });

  it.each(['\t', '\r', ' \n'])('finds a sender secret with trailing %j, and padded on both sides', (pad) => {
    expect(causesOf(sign(`${SECRET}${pad}`, `${T}.${BODY}`))).toEqual(['secret_whitespace']);
    expect(causesOf(sign(` ${SECRET}\n`, `${T}.${BODY}`))).toEqual(['secret_whitespace']);
  });

  // Found by bench/stress-signatures.mjs: only JSON.stringify layouts of the received body were tried.
  it("finds a body the sender signed as Python's json.dumps writes it", () => {
    const body = '{"id":"e1","data":{"name":"Zoë 🎁","n":[1,2]}}';
    const python = '{"id": "e1", "data": {"name": "Zo\\u00eb \\ud83c\\udf81", "n": [1, 2]}}';
    expect(JSON.parse(python)).toEqual(JSON.parse(body));
    expect(causesOf(sign(SECRET, `${T}.${python}`), { body })).toEqual(['body_reserialized']);
    expect(causesOf(sign(SECRET, `${T}.${body}`), { body: python })).toEqual(['body_reserialized']);
    expect(causesOf(sign(SECRET, `${T}.{"a": "x,y: z"}`), { body: '{"a":"x,y: z"}' })).toEqual(['body_reserialized']);
  });

  it('names the stored profile whose secret matches, without its value', () => {
    const verification = verifySignature({ header: header(T, sign(OTHER_SECRET, `${T}.${BODY}`)), payload: Buffer.from(BODY), secret: SECRET, now: T });
    const causes = diagnose({ verification, payload: Buffer.from(BODY), secret: SECRET, otherSecrets: [{ source: 'profile default', secret: SECRET }, { source: 'profile staging', secret: OTHER_SECRET }] });
    expect(causes).toEqual([expect.objectContaining({ code: 'wrong_secret', secretSource: 'profile staging' })]);
    expect(JSON.stringify(causes)).not.toContain(OTHER_SECRET);
  });

  it('finds a millisecond timestamp, however it was signed', () => {
    const ms = T * 1000;
    // t in ms, signed over that t: only the time is off.
    expect(causesOf(sign(SECRET, `${ms}.${BODY}`), { t: ms })).toEqual(['timestamp_milliseconds']);
    // t in ms, signed over seconds.
    expect(causesOf(sign(SECRET, `${T}.${BODY}`), { t: ms })).toEqual(['timestamp_milliseconds']);
    // t in seconds, signed over milliseconds.
    expect(causesOf(sign(SECRET, `${ms}.${BODY}`))).toEqual(['timestamp_milliseconds']);
  });

  // Found by bench/stress-signatures.mjs: any t of 13+ digits was called milliseconds.
  it('calls a long t milliseconds only when, read as such, it is near the clock', () => {
    expect(causesOf(sign(SECRET, `99999999999999999.${BODY}`), { t: '99999999999999999' })).toEqual(['future_timestamp']);
    expect(causesOf(sign(SECRET, `1000000000000.${BODY}`), { t: '1000000000000' })).toEqual(['future_timestamp']);
    expect(causesOf(sign(SECRET, `${T * 1000 + 999}.${BODY}`), { t: T * 1000 + 999 })).toEqual(['timestamp_milliseconds']);
  });

  it('finds a body signed without the timestamp', () => {
    expect(causesOf(sign(SECRET, BODY))).toEqual(['signed_without_timestamp']);
  });

  it('finds two mistakes at once', () => {
    expect(causesOf(sign(Buffer.from(SECRET, 'hex'), `${T}.${BODY}`), { body: `${BODY}\n` }).sort()).toEqual(['secret_hex_decoded', 'trailing_newline_added']);
  });

  it('reports a stale or future time, and a signature mistake besides', () => {
    expect(causesOf(sign(SECRET, `${T}.${BODY}`), { now: T + 600 })).toEqual(['stale_timestamp']);
    expect(causesOf(sign(SECRET, `${T}.${BODY}`), { now: T - 600 })).toEqual(['future_timestamp']);
    expect(causesOf(sign(SECRET, `${T}.${BODY}\n`), { now: T + 600 })).toEqual(['stale_timestamp', 'trailing_newline_lost']);
  });

  it('finds nothing for a signature no known mistake explains', () => {
    expect(causesOf('0'.repeat(64))).toEqual([]);
  });
});

// Found by bench/stress-signatures.mjs: --secret-stdin trimmed every space, so `webhooks sign` signed
// with another secret than the one given, and a secret pasted with spaces verified silently.
describe('secretFromStdin', () => {
  it('drops the one line end echo adds and keeps everything else', () => {
    expect(secretFromStdin(`${SECRET}\n`)).toBe(SECRET);
    expect(secretFromStdin(`${SECRET}\r\n`)).toBe(SECRET);
    expect(secretFromStdin(SECRET)).toBe(SECRET);
    expect(secretFromStdin(` ${SECRET} \n`)).toBe(` ${SECRET} `);
    expect(secretFromStdin(`${SECRET}\n\n`)).toBe(`${SECRET}\n`);
  });

  it('has no secret in blank input', () => {
    expect(secretFromStdin('')).toBeUndefined();
    expect(secretFromStdin('  \n')).toBeUndefined();
  });
});
