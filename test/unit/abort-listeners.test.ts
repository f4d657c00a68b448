/** Many waits under one signal add one 'abort' listener, not one each (no MaxListenersExceededWarning). */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from '../../src/core/abort.js';
import { InterruptedError } from '../../src/core/errors.js';
import { sleep } from '../../src/core/sleep.js';
import { Pacer } from '../../src/api/pacer.js';

describe('abort listeners', () => {
  it('twenty sleeps on one signal hold one listener, and none once they end', async () => {
    const controller = new AbortController();
    const waits = Array.from({ length: 20 }, () => sleep(5, controller.signal));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await Promise.all(waits);
    // the one listener stays registered for later waits, but with nothing left to run
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
  });

  it('an abort ends every wait with InterruptedError, at once', async () => {
    const controller = new AbortController();
    const waits = Array.from({ length: 20 }, () => sleep(60_000, controller.signal));
    controller.abort();
    const results = await Promise.allSettled(waits);
    expect(results.every((result) => result.status === 'rejected' && result.reason instanceof InterruptedError)).toBe(true);
    await expect(sleep(1, controller.signal)).rejects.toBeInstanceOf(InterruptedError);
  });

  it('twenty callers held by the pacer (a 429 pause) share one listener', async () => {
    const controller = new AbortController();
    const pacer = new Pacer(3_000, sleep);
    pacer.pauseUntil(Date.now() + 20);
    const acquired = Array.from({ length: 20 }, () => pacer.acquire(controller.signal));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await Promise.all(acquired);
  });

  it('a released callback does not run on a later abort', () => {
    const controller = new AbortController();
    const ran: string[] = [];
    const release = onAbort(controller.signal, () => ran.push('a'));
    onAbort(controller.signal, () => ran.push('b'));
    release();
    controller.abort();
    expect(ran).toEqual(['b']);
  });
});
