/**
 * Waiting for what another process or the sandbox does next, by vitest's own vi.waitFor: `check`
 * is polled every 20 ms until it holds, for up to 15 s (a busy 2-core machine running the whole
 * suite); then the wait fails with `seen()`, what a person needs to see why.
 */
import { vi } from 'vitest';

export async function until(check: () => boolean, seen: () => string = () => 'the condition never held', timeoutMs = 15_000): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error(`timed out after ${timeoutMs / 1000} s: ${seen()}`);
    },
    { timeout: timeoutMs, interval: 20 },
  );
}
