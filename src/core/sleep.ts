import { onAbort } from './abort.js';
import { InterruptedError } from './errors.js';

/** Waits `ms`; Ctrl-C (the signal) ends the wait with InterruptedError. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new InterruptedError());
  return new Promise<void>((resolve, reject) => {
    // One shared listener per signal (src/core/abort.ts): many workers wait at once in bulk.
    const release = signal
      ? onAbort(signal, () => {
          clearTimeout(timer);
          reject(new InterruptedError());
        })
      : () => undefined;
    const timer = setTimeout(() => {
      release();
      resolve();
    }, ms);
  });
}
