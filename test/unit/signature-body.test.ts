/**
 * The signature doctor checks the body before it blames the secret: a body that is not JSON, cut
 * short, with its members reordered (`jq -cS .`), laid out differently or with a line end added is
 * named even when no known mistake re-creates the signature (the sender's own bytes are gone).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/core/signature.js';
import { diagnose } from '../../src/core/signature-diagnose.js';

const SECRET = '5e'.repeat(32);
const ROTATED = '7a'.repeat(32);
const T = 1763719200;
/** A feed event as the service writes it: compact, id first. */
const SENT = '{"id":"0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11","type":"order.cancelled","occurredAt":"2026-11-21T09:00:00.000000Z","environment":"production","data":{"reference":"SVC-000008","coinPrice":"1200"}}';
const sign = (secret: string, body: string) => createHmac('sha256', secret).update(`${T}.${body}`).digest('hex');

/** Diagnoses `received` against a signature the sender made over SENT with `secret`. */
function causesOf(received: string, secret = SECRET) {
  const payload = Buffer.from(received);
  const verification = verifySignature({ header: `t=${T},v1=${sign(secret, SENT)}`, payload, secret: SECRET, now: T });
  expect(verification.valid).toBe(false);
  return diagnose({ verification, payload, secret: SECRET });
}

/** What `jq -cS .` writes: members sorted at every level, compact, a line end after. */
function jqCompactSorted(text: string): string {
  const sort = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(sort) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, sort(v)])) : value;
  return `${JSON.stringify(sort(JSON.parse(text)))}\n`;
}

describe('the body, before the secret', () => {
  it('members reordered by jq -cS, with the right secret: the order (alphabetical) and the line end jq adds', () => {
    expect(causesOf(jqCompactSorted(SENT))).toEqual([
      {
        code: 'keys_reordered',
        message:
          "the event's members are in another order (data, environment, id, occurredAt, type: alphabetical, as jq -S or sort_keys=True write them); the sender signed them as id, type, occurredAt, environment, data: verify the raw bytes as received, before any parsing or saving",
      },
      { code: 'trailing_newline_added', message: 'the body ends with a line end; the sender signs the event without one (added when saving or reading it)' },
    ]);
  });

  it('members in another order that is not alphabetical', () => {
    const event = JSON.parse(SENT);
    const moved = JSON.stringify({ type: event.type, id: event.id, occurredAt: event.occurredAt, environment: event.environment, data: event.data });
    expect(causesOf(moved).map((cause) => cause.message)).toEqual([
      "the event's members are in another order (type, id, occurredAt, environment, data); the sender signed them as id, type, occurredAt, environment, data: verify the raw bytes as received, before any parsing or saving",
    ]);
  });

  it('whitespace changed (pretty-printed) and, beside it, a changed secret: the body is named', () => {
    expect(causesOf(JSON.stringify(JSON.parse(SENT), null, 2), ROTATED)).toEqual([
      {
        code: 'whitespace_changed',
        message: 'the body is not laid out as compact JSON (whitespace between its members, or characters escaped differently); the sender signs compact JSON: verify the raw bytes as received, before any parsing or saving',
      },
    ]);
  });

  it('cut short: named as truncated, with its length', () => {
    const cut = SENT.slice(0, 100);
    expect(causesOf(cut)).toEqual([
      {
        code: 'body_truncated',
        message: 'the body stops in the middle of its JSON after 100 bytes: it was cut short (a size limit, or a read that stopped early); the sender signed the whole event',
      },
    ]);
    expect(causesOf(SENT.slice(0, -1)).map((cause) => cause.code)).toEqual(['body_truncated']);
  });

  it('not JSON at all, or empty', () => {
    expect(causesOf('id=0b7c2f0e&type=order.cancelled').map((cause) => cause.code)).toEqual(['body_not_json']);
    expect(causesOf('{"id":"e1"}}').map((cause) => cause.code)).toEqual(['body_not_json']);
    expect(causesOf('')).toEqual([{ code: 'body_not_json', message: "the body is empty; the sender signed a JSON event: is this the delivery's body?" }]);
  });

  it('a trailing newline alone is proven by the signature it re-creates', () => {
    expect(causesOf(`${SENT}\n`).map((cause) => cause.code)).toEqual(['trailing_newline_added']);
  });

  it('a trailing newline beside a rotated secret is still named', () => {
    expect(causesOf(`${SENT}\n`, ROTATED).map((cause) => cause.code)).toEqual(['trailing_newline_added']);
  });

  it('a body exactly as sent, with another secret: nothing about the body (the secret is what is left)', () => {
    expect(causesOf(SENT, ROTATED)).toEqual([]);
  });
});
