/** `svc verify-signature` in-process: verdicts, exit codes, JSON evidence, diagnosis, usage errors. */
import { createHmac } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { svc } from '../helpers/run.js';
import { tempDir } from '../helpers/cleanup.js';

const SECRET = 'c'.repeat(64);
const STAGING_SECRET = 'd'.repeat(64);
const T = 1763719200;
const BODY = '{"id":"e1","type":"order.cancelled","data":{"reference":"R-9"}}';
const sign = (secret: string | Buffer, message: string) => createHmac('sha256', secret).update(message).digest('hex');

/** A config dir with two stored profiles, so "wrong secret" can name the one that matches. */
function configWithProfiles(): string {
  const dir = tempDir();
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      profiles: {
        default: { baseUrl: 'http://127.0.0.1:4010/v1', webhookSecret: SECRET },
        staging: { baseUrl: 'https://staging.example/v1', webhookSecret: STAGING_SECRET },
      },
      cursors: {},
    }),
  );
  return dir;
}

const configDir = configWithProfiles();
const payloadFile = (body: string) => {
  const file = join(tempDir(), 'body.json');
  writeFileSync(file, body);
  return file;
};
const verify = (header: string, body = BODY, extra: string[] = []) =>
  svc(['verify-signature', '--header', header, '--payload-file', payloadFile(body), '--now', String(T), ...extra], { env: { SVC_CONFIG_DIR: configDir } });

/**
 * The JSON evidence of one verification: every field, those a case does not name at their usual values.
 * `expected` is null unless a signature the header carries matches: svc never prints the signature it
 * expected for a failure (that would make it a signing oracle).
 */
function report(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    valid: false,
    reason: 'no_matching_signature',
    detail: 'none of the 1 v1 signature matches the payload and secret',
    cause: null,
    causes: [],
    problems: [],
    timestamp: T,
    now: T,
    skewSeconds: 0,
    toleranceSeconds: 300,
    signatures: [],
    otherSchemes: [],
    expected: null,
    signatureMatches: false,
    secretSource: 'profile default',
    ...fields,
  };
}

const VALID = { valid: true, reason: null, detail: 'valid: a v1 signature matches and t is within ±300s', signatureMatches: true };
const invalidLine = (detail: string) => `error: invalid_signature: ${detail}\n`;
const NO_MATCH = invalidLine('no_matching_signature: none of the 1 v1 signature matches the payload and secret');

describe('verify-signature', () => {
  it('exits 0 on a valid signature and prints the evidence as JSON', async () => {
    const v1 = sign(SECRET, `${T}.${BODY}`);
    const result = await verify(`t=${T},v0=old,v1=${'0'.repeat(64)},v1=${v1}`, BODY, ['-o', 'json']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${JSON.stringify(report({ ...VALID, signatures: ['0'.repeat(64), v1], otherSchemes: ['v0'], expected: v1 }), null, 2)}\n`);
    expect(result.stderr).toBe('');
  });

  // Found by bench/stress-signatures.mjs: a piped secret with spaces was trimmed and verified silently.
  it('keeps whitespace around a piped secret and names it as the cause', async () => {
    const v1 = sign(SECRET, `${T}.${BODY}`);
    const args = ['verify-signature', '--header', `t=${T},v1=${v1}`, '--payload-file', payloadFile(BODY), '--now', String(T), '--secret-stdin', '-o', 'json'];
    const padded = await svc(args, { input: ` ${SECRET}\n`, env: { SVC_CONFIG_DIR: configDir } });
    expect(padded.exitCode).toBe(1);
    expect(JSON.parse(padded.stdout)).toEqual(
      report({
        cause: 'secret_whitespace',
        causes: [{ code: 'secret_whitespace', message: 'the secret you gave carries whitespace (a newline or spaces); the sender used it without' }],
        signatures: [v1],
        secretSource: '--secret-stdin',
      }),
    );
    expect(padded.stderr).toBe('{"code":"invalid_signature","detail":"no_matching_signature: none of the 1 v1 signature matches the payload and secret"}\n');
    expect(padded.stdout + padded.stderr).not.toContain(sign(` ${SECRET}`, `${T}.${BODY}`).slice(0, 8));
    const exact = await svc(args, { input: `${SECRET}\r\n`, env: { SVC_CONFIG_DIR: configDir } });
    expect(exact.exitCode).toBe(0);
    expect(JSON.parse(exact.stdout)).toEqual(report({ ...VALID, signatures: [v1], expected: v1, secretSource: '--secret-stdin' }));
  });

  it('shows a verdict and the evidence to a person', async () => {
    const v1 = sign(SECRET, `${T}.${BODY}`);
    const result = await verify(`t=${T - 42},v1=${v1}`, BODY, ['-o', 'table']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe(
      [
        '✗ invalid: no_matching_signature: none of the 1 v1 signature matches the payload and secret',
        "  likely cause: no known mistake explains it; the secret (profile default) is probably not the sender's (rotated?) or the body was changed",
        `  t         ${T - 42} (2025-11-21T09:59:18Z)`,
        `  skew      -42s from now (${T}); tolerance ±300s`,
        `  v1        ${v1}`,
        '',
      ].join('\n'),
    );
    expect(result.stderr).toBe(NO_MATCH);
    // Never the signature it expected (a signing oracle), nor a prefix of it.
    expect(result.stdout + result.stderr).not.toContain(sign(SECRET, `${T - 42}.${BODY}`).slice(0, 8));
  });

  it.each([
    ['a re-serialised body', JSON.stringify(JSON.parse(BODY), null, 2), sign(SECRET, `${T}.${BODY}`), 'body_reserialized'],
    ['a trailing newline added', `${BODY}\n`, sign(SECRET, `${T}.${BODY}`), 'trailing_newline_added'],
    ['a hex-decoded secret', BODY, sign(Buffer.from(SECRET, 'hex'), `${T}.${BODY}`), 'secret_hex_decoded'],
    ['a millisecond signature', BODY, sign(SECRET, `${T}000.${BODY}`), 'timestamp_milliseconds'],
  ])('diagnoses %s', async (_name, body, v1, cause) => {
    const result = await verify(`t=${T},v1=${v1}`, body);
    expect(result.exitCode).toBe(1);
    const evidence = JSON.parse(result.stdout);
    expect(evidence).toEqual(report({ cause, causes: [{ code: cause, message: evidence.causes[0]?.message }], signatures: [v1] }));
    expect(evidence.causes[0].message).toEqual(expect.any(String));
    expect(result.stderr).toBe(NO_MATCH);
    expect(result.stdout + result.stderr).not.toContain(sign(SECRET, `${T}.${body}`).slice(0, 8));
  });

  it('names the stored profile whose secret matches, never the secret', async () => {
    const result = await verify(`t=${T},v1=${sign(STAGING_SECRET, `${T}.${BODY}`)}`);
    const v1 = sign(STAGING_SECRET, `${T}.${BODY}`);
    expect(JSON.parse(result.stdout)).toEqual(
      report({
        cause: 'wrong_secret',
        causes: [{ code: 'wrong_secret', message: 'wrong secret: the signature matches the webhook secret of profile staging', secretSource: 'profile staging' }],
        signatures: [v1],
      }),
    );
    expect(result.stdout + result.stderr).not.toContain(STAGING_SECRET);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  it('rejects stale, future and millisecond timestamps and honours --tolerance', async () => {
    const at = (t: number | string) => `t=${t},v1=${sign(SECRET, `${t}.${BODY}`)}`;
    const outside = (t: number, detail: string, cause: string, message: string, tolerance = 300) => {
      const v1 = sign(SECRET, `${t}.${BODY}`);
      return report({ reason: 'timestamp_outside_tolerance', detail, cause, causes: [{ code: cause, message }], timestamp: t, skewSeconds: t - T, toleranceSeconds: tolerance, signatures: [v1], expected: v1, signatureMatches: true });
    };
    const stale = await verify(at(T - 301));
    expect(JSON.parse(stale.stdout)).toEqual(
      outside(T - 301, 't is 301s in the past, beyond the ±300s tolerance (the signature itself matches)', 'stale_timestamp', "signed 301s ago: a replayed or late delivery, or the receiver's clock is ahead"),
    );
    expect(stale.stderr).toBe(invalidLine('timestamp_outside_tolerance: t is 301s in the past, beyond the ±300s tolerance (the signature itself matches)'));
    expect(JSON.parse((await verify(at(T + 301))).stdout)).toEqual(
      outside(T + 301, 't is 301s in the future, beyond the ±300s tolerance (the signature itself matches)', 'future_timestamp', "signed 301s in the future: the sender's clock is ahead or the receiver's behind"),
    );
    expect(JSON.parse((await verify(at(T * 1000))).stdout)).toEqual(
      outside(T * 1000, `t is ${T * 1000 - T}s in the future, beyond the ±300s tolerance (the signature itself matches)`, 'timestamp_milliseconds', 't looks like unix milliseconds; the scheme uses unix seconds'),
    );
    const tolerated = await verify(at(T - 301), BODY, ['--tolerance', '400']);
    expect(tolerated.exitCode).toBe(0);
    const v1 = sign(SECRET, `${T - 301}.${BODY}`);
    expect(JSON.parse(tolerated.stdout)).toEqual(
      report({ ...VALID, detail: 'valid: a v1 signature matches and t is within ±400s', timestamp: T - 301, skewSeconds: -301, toleranceSeconds: 400, signatures: [v1], expected: v1 }),
    );
    const strict = await verify(at(T - 10), BODY, ['--tolerance', '5']);
    expect(strict.exitCode).toBe(1);
    expect(JSON.parse(strict.stdout)).toEqual(
      outside(T - 10, 't is 10s in the past, beyond the ±5s tolerance (the signature itself matches)', 'stale_timestamp', "signed 10s ago: a replayed or late delivery, or the receiver's clock is ahead", 5),
    );
  });

  it('names a malformed header', async () => {
    const result = await verify(`t=${T},v1=abc`);
    expect(result.exitCode).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual(
      report({ reason: 'malformed_header', detail: 'malformed header: v1 "abc" is not 64 hex digits (3 characters)', problems: ['v1 "abc" is not 64 hex digits (3 characters)'] }),
    );
    expect(result.stderr).toBe(invalidLine('malformed_header: malformed header: v1 "abc" is not 64 hex digits (3 characters)'));
    const empty = await verify('');
    expect(empty.exitCode).toBe(1);
    expect(JSON.parse(empty.stdout)).toEqual(
      report({ reason: 'malformed_header', detail: 'malformed header: the header is empty', problems: ['the header is empty'], timestamp: null, skewSeconds: null, expected: null }),
    );
  });

  it('takes the secret from stdin before the environment and the profile', async () => {
    const other = 'e'.repeat(64);
    const file = payloadFile(BODY);
    const args = ['verify-signature', '--header', `t=${T},v1=${sign(other, `${T}.${BODY}`)}`, '--payload-file', file, '--now', String(T), '--secret-stdin'];
    const result = await svc([...args, '-o', 'json'], { input: `${other}\n`, env: { SVC_CONFIG_DIR: configDir, SVC_WEBHOOK_SECRET: STAGING_SECRET } });
    expect(result.exitCode).toBe(0);
    const v1 = sign(other, `${T}.${BODY}`);
    expect(JSON.parse(result.stdout)).toEqual(report({ ...VALID, signatures: [v1], expected: v1, secretSource: '--secret-stdin' }));
  });

  it('exits 2 on usage errors', async () => {
    const env = { SVC_CONFIG_DIR: configDir };
    const file = payloadFile(BODY);
    const cases: [string[], string][] = [
      [['--payload-file', file], '--header: required (the Svc-Signature header value)'],
      [['--header', 't=1,v1=x'], '--payload-file: required (the raw body as received, - for stdin)'],
      [['--header', 't=1,v1=x', '--payload-file', file, '--tolerance', 'abc'], '--tolerance: must be whole seconds (digits only), got "abc"'],
      [['--header', 't=1,v1=x', '--payload-file', file, '--now', '-3'], '--now: must be whole seconds (digits only), got "-3"'],
      [['--header', 't=1,v1=x', '--payload-file', '-', '--secret-stdin'], '--payload-file - and --secret-stdin cannot both read standard input'],
      [['--header', 't=1,v1=x', '--payload-file', '/nonexistent/file'], '--payload-file: cannot read /nonexistent/file: no such file'],
    ];
    for (const [args, message] of cases) {
      expect(await svc(['verify-signature', ...args], { env })).toEqual({ exitCode: 2, stdout: '', stderr: `error: usage_error: ${message}\n` });
    }
  });
});

describe('verify-signature checks the body before the secret', () => {
  it('a body re-written by jq -cS (members sorted, a line end added) with the right secret names both, never a rotated secret', async () => {
    const v1 = sign(SECRET, `${T}.${BODY}`);
    const sorted = '{"data":{"reference":"R-9"},"id":"e1","type":"order.cancelled"}\n';
    const result = await verify(`t=${T},v1=${v1}`, sorted, ['-o', 'table']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe(
      [
        '✗ invalid: no_matching_signature: none of the 1 v1 signature matches the payload and secret',
        "  likely cause: the event's members are in another order (data, id, type: alphabetical, as jq -S or sort_keys=True write them); the sender signed them as id, type, data: verify the raw bytes as received, before any parsing or saving [keys_reordered]",
        '  likely cause: the body ends with a line end; the sender signs the event without one (added when saving or reading it) [trailing_newline_added]',
        `  t         ${T} (2025-11-21T10:00:00Z)`,
        `  skew      0s from now (${T}); tolerance ±300s`,
        `  v1        ${v1}`,
        '',
      ].join('\n'),
    );
    expect(result.stderr).toBe(NO_MATCH);
  });
});
