import { setTimeout as delay } from 'node:timers/promises';
import { InterruptedError } from './errors.js';

/** Waits `ms`; Ctrl-C (the signal) ends the wait with InterruptedError. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
  } catch (error) {
    if (signal?.aborted) throw new InterruptedError();
    throw error;
  }
}
