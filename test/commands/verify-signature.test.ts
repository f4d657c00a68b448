/** `svc verify-signature` as a user runs it: verdicts, exit codes, JSON evidence, diagnosis, usage errors. */
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

describe('verify-signature', () => {
  it('exits 0 on a valid signature and prints the evidence as JSON', async () => {
    const v1 = sign(SECRET, `${T}.${BODY}`);
    const result = await verify(`t=${T},v0=old,v1=${'0'.repeat(64)},v1=${v1}`, BODY, ['-o', 'json']);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      valid: true,
      reason: null,
      timestamp: T,
      skewSeconds: 0,
      signatures: ['0'.repeat(64), v1],
      otherSchemes: ['v0'],
      expected: v1,
    });
  });

  // Found by bench/stress-signatures.mjs: a piped secret with spaces was trimmed and verified silently.
  it('keeps whitespace around a piped secret and names it as the cause', async () => {
    const v1 = sign(SECRET, `${T}.${BODY}`);
    const args = ['verify-signature', '--header', `t=${T},v1=${v1}`, '--payload-file', payloadFile(BODY), '--now', String(T), '--secret-stdin', '-o', 'json'];
    const padded = await svc(args, { input: ` ${SECRET}\n`, env: { SVC_CONFIG_DIR: configDir } });
    expect(padded.exitCode).toBe(1);
    expect(JSON.parse(padded.stdout)).toMatchObject({ reason: 'no_matching_signature', cause: 'secret_whitespace' });
    expect((await svc(args, { input: `${SECRET}\r\n`, env: { SVC_CONFIG_DIR: configDir } })).exitCode).toBe(0);
  });

  it('shows a verdict and the evidence to a person', async () => {
    const v1 = sign(SECRET, `${T}.${BODY}`);
    const result = await verify(`t=${T - 42},v1=${v1}`, BODY, ['-o', 'table']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('invalid: no_matching_signature');
    expect(result.stdout).toContain(`${T - 42}`);
    expect(result.stdout).toMatch(/skew\s+-42s/);
    expect(result.stdout).toContain(v1);
    expect(result.stdout).toContain(sign(SECRET, `${T - 42}.${BODY}`));
    expect(result.stdout).not.toContain(SECRET);
  });

  it.each([
    ['a re-serialised body', JSON.stringify(JSON.parse(BODY), null, 2), sign(SECRET, `${T}.${BODY}`), 'body_reserialized'],
    ['a trailing newline added', `${BODY}\n`, sign(SECRET, `${T}.${BODY}`), 'trailing_newline_added'],
    ['a hex-decoded secret', BODY, sign(Buffer.from(SECRET, 'hex'), `${T}.${BODY}`), 'secret_hex_decoded'],
    ['a millisecond signature', BODY, sign(SECRET, `${T}000.${BODY}`), 'timestamp_milliseconds'],
  ])('diagnoses %s', async (_name, body, v1, cause) => {
    const result = await verify(`t=${T},v1=${v1}`, body);
    expect(result.exitCode).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ valid: false, reason: 'no_matching_signature', cause });
  });

  it('names the stored profile whose secret matches, never the secret', async () => {
    const result = await verify(`t=${T},v1=${sign(STAGING_SECRET, `${T}.${BODY}`)}`);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ cause: 'wrong_secret', causes: [{ secretSource: 'profile staging' }] });
    expect(result.stdout + result.stderr).not.toContain(STAGING_SECRET);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  it('rejects stale, future and millisecond timestamps and honours --tolerance', async () => {
    const at = (t: number | string) => `t=${t},v1=${sign(SECRET, `${t}.${BODY}`)}`;
    expect(JSON.parse((await verify(at(T - 301))).stdout)).toMatchObject({ reason: 'timestamp_outside_tolerance', skewSeconds: -301, cause: 'stale_timestamp' });
    expect(JSON.parse((await verify(at(T + 301))).stdout)).toMatchObject({ reason: 'timestamp_outside_tolerance', skewSeconds: 301, cause: 'future_timestamp' });
    expect(JSON.parse((await verify(at(T * 1000))).stdout)).toMatchObject({ reason: 'timestamp_outside_tolerance', cause: 'timestamp_milliseconds' });
    expect((await verify(at(T - 301), BODY, ['--tolerance', '400'])).exitCode).toBe(0);
    expect((await verify(at(T - 10), BODY, ['--tolerance', '5'])).exitCode).toBe(1);
  });

  it('names a malformed header', async () => {
    const result = await verify(`t=${T},v1=abc`);
    expect(result.exitCode).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ reason: 'malformed_header', problems: ['v1 "abc" is not 64 hex digits (3 characters)'] });
    expect(JSON.parse((await verify('')).stdout).reason).toBe('malformed_header');
  });

  it('takes the secret from stdin before the environment and the profile', async () => {
    const other = 'e'.repeat(64);
    const file = payloadFile(BODY);
    const args = ['verify-signature', '--header', `t=${T},v1=${sign(other, `${T}.${BODY}`)}`, '--payload-file', file, '--now', String(T), '--secret-stdin'];
    const result = await svc(args, { input: `${other}\n`, env: { SVC_CONFIG_DIR: configDir, SVC_WEBHOOK_SECRET: STAGING_SECRET } });
    expect(result.exitCode).toBe(0);
  });

  it('exits 2 on usage errors', async () => {
    const env = { SVC_CONFIG_DIR: configDir };
    const file = payloadFile(BODY);
    expect((await svc(['verify-signature', '--payload-file', file], { env })).exitCode).toBe(2);
    expect((await svc(['verify-signature', '--header', 't=1,v1=x'], { env })).exitCode).toBe(2);
    expect((await svc(['verify-signature', '--header', 't=1,v1=x', '--payload-file', file, '--tolerance', 'abc'], { env })).exitCode).toBe(2);
    expect((await svc(['verify-signature', '--header', 't=1,v1=x', '--payload-file', file, '--now', '-3'], { env })).exitCode).toBe(2);
    expect((await svc(['verify-signature', '--header', 't=1,v1=x', '--payload-file', '-', '--secret-stdin'], { env })).exitCode).toBe(2);
    expect((await svc(['verify-signature', '--header', 't=1,v1=x', '--payload-file', '/nonexistent/file'], { env })).exitCode).toBe(2);
  });
});
