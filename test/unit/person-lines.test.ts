/**
 * Lines for a person on a terminal that are not tables (a `webhooks listen` delivery, a `webhooks
 * replay` result): at 80 columns they fit the terminal, keeping whole what a person acts on; with no
 * width (not a terminal) they are as before, whole.
 */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { deliveryLine } from '../../src/features/webhooks/line.js';
import { replayLine } from '../../src/commands/webhooks/replay.js';

const plain = new Chalk({ level: 0 });
const at = '2026-11-24T16:16:43.948Z';
const id = '6484af50-0160-48ce-8272-39f15e6d84c4';

describe('webhooks listen: one line per delivery', () => {
  it('at 80 columns the event id stays whole: the time gives way to HH:MM:SS (UTC), then "verified" to ✓', () => {
    const line = deliveryLine(plain, at, id, 'personal_link.cancelled', { ok: true, status: 200 }, 80);
    expect(line).toBe(`16:16:43  ${id}  personal_link.cancelled  ✓`);
  });

  it('at 80 columns a duplicate keeps its id and the word duplicate; the type shrinks with …', () => {
    const line = deliveryLine(plain, at, id, 'personal_link.cancelled', { ok: true, status: 200, duplicate: true }, 80);
    expect(line).toBe(`16:16:43  ${id}  personal_link.canc…  ✓ duplicate`);
    expect(line).toHaveLength(80);
  });

  it('a delivery that could not be saved says so on its line, the id whole at 80 columns', () => {
    const verdict = { ok: true, status: 200, notSaved: "EACCES: permission denied, open '/d/evt.json'" };
    expect(deliveryLine(plain, at, id, 'personal_link.cancelled', verdict)).toBe(`${at}  ${id}  personal_link.cancelled  ✓ verified  ✗ not saved: EACCES: permission denied, open '/d/evt.json'`);
    const line = deliveryLine(plain, at, id, 'personal_link.cancelled', verdict, 80);
    expect(line).toBe(`16:16:43  ${id}  pers…  ✓  ✗ not saved: EACCES: …`);
    expect(line).toHaveLength(80);
  });

  it('only an id wider than the terminal is cut', () => {
    const line = deliveryLine(plain, at, 'e'.repeat(100), 'ping', { ok: true, status: 200 }, 80);
    expect(line).toBe(`16:16:43  ${'e'.repeat(60)}…  ping  ✓`);
    expect(line).toHaveLength(80);
  });

  it('where it fits (200 columns, or no terminal) the id is shown', () => {
    const whole = `2026-11-24T16:16:43.948Z  ${id}  personal_link.cancelled  ✓ verified`;
    expect(deliveryLine(plain, at, id, 'personal_link.cancelled', { ok: true, status: 200 }, 200)).toBe(whole);
    expect(deliveryLine(plain, at, id, 'personal_link.cancelled', { ok: true, status: 200 })).toBe(whole);
  });

  it("a refusal keeps its id whole; the type its body claims goes, and the detail shrinks with … to the width", () => {
    const verdict = { ok: false, status: 400, error: 'no_matching_signature', detail: 'no v1 signature matches this body with the webhook secret; was the secret rotated?' };
    const line = deliveryLine(plain, at, id, 'order.sent', verdict, 80);
    expect(line).toBe(`16:16:43  ${id}  ✗ no_matching_signature: no v1 …`);
    expect(line).toHaveLength(80);
  });
});

describe('webhooks replay: one line per delivery', () => {
  const result = { file: `/d/${id}.json`, eventId: id, receivedAt: at, status: 200, ok: true, body: `got it ${'x'.repeat(193)}…` };

  it("at 80 columns the start of the receiver's answer is cut to the line", () => {
    const line = replayLine(result, plain, 80);
    expect(line).toBe(`✓ ${id}  200  got it ${'x'.repeat(27)}…`);
    expect(line).toHaveLength(80);
  });

  it('with no terminal width the line is whole', () => {
    expect(replayLine(result, plain)).toBe(`✓ ${id}  200  got it ${'x'.repeat(193)}…`);
  });
});
