/** Why a run stopped, decided in one place (core/abort.ts): Ctrl-C, or a reader of stdout that went away. */
import { describe, expect, it } from 'vitest';
import { isOutputClosed, outputClosedError, stopReason } from '../../src/core/abort.js';

describe('stopReason', () => {
  it('is undefined while the run goes on', () => {
    expect(stopReason(new AbortController().signal)).toBeUndefined();
    expect(stopReason(undefined)).toBeUndefined();
  });

  it('is interrupted for Ctrl-C (no reason, or any other reason)', () => {
    const plain = new AbortController();
    plain.abort();
    expect(stopReason(plain.signal)).toBe('interrupted');
    const other = new AbortController();
    other.abort(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    expect(stopReason(other.signal)).toBe('interrupted');
  });

  it('is output-closed when the run was stopped by a write to a closed output', () => {
    const controller = new AbortController();
    controller.abort(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(stopReason(controller.signal)).toBe('output-closed');
  });
});

describe('isOutputClosed', () => {
  it('recognises the error svc makes for a closed output, and a stream’s own EPIPE', () => {
    expect(isOutputClosed(outputClosedError())).toBe(true);
    expect(outputClosedError().message).toBe('standard output was closed');
    expect(isOutputClosed(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe(true);
  });

  it('is false for anything else', () => {
    for (const value of [undefined, null, 'EPIPE', new Error('EPIPE'), { code: 'ECONNRESET' }]) expect(isOutputClosed(value)).toBe(false);
  });
});
