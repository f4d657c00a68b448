/**
 * Virtual time for command-layer tests: a stand-in for src/core/sleep.ts that records each wait,
 * moves Date forward by it at once (only Date is faked; timers stay real so sockets work), and yields.
 * Use it with
 *   vi.mock('../../src/core/sleep.js', () => import('./virtual-time.js'));
 * Retries and pacing then take no wall time, and a test can assert the waits svc asked for.
 */
import { vi } from 'vitest';
import { InterruptedError } from '../../src/core/errors.js';

// Installed when svc's code first imports sleep.js, so every clock it reads (Date.now) is this one.
vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });

/** Every wait asked for, in milliseconds (a test clears it when it looks at it). */
export const waits: number[] = [];

export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw new InterruptedError();
  waits.push(ms);
  vi.setSystemTime(Date.now() + ms);
  await new Promise((resolve) => setImmediate(resolve));
  if (signal?.aborted) throw new InterruptedError();
}
