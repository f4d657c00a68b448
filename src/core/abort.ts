/**
 * One 'abort' listener per signal, however many waits share it. Bulk work runs dozens of requests
 * and pacer waits at once under one signal; a listener each would grow with the concurrency (and
 * trip Node's MaxListenersExceededWarning at 11). Here every signal gets a single listener that
 * runs the callbacks registered on it, and a callback is dropped as soon as its wait ends.
 */
const callbacks = new WeakMap<AbortSignal, Set<() => void>>();

/** Runs `callback` once if `signal` aborts; the returned function unregisters it (call it when done). */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let set = callbacks.get(signal);
  if (set === undefined) {
    const registered = new Set<() => void>();
    set = registered;
    callbacks.set(signal, registered);
    signal.addEventListener(
      'abort',
      () => {
        callbacks.delete(signal);
        for (const run of registered) run();
        registered.clear();
      },
      { once: true },
    );
  }
  set.add(callback);
  const registered = set;
  return () => registered.delete(callback);
}

/**
 * Why a run stops before its work is done: Ctrl-C (or SIGTERM, SIGHUP), or a reader of standard
 * output that went away (`svc … | head`), which is not an error. The run's signal is aborted with
 * the output's error as its reason in the second case; this is the one place that tells them apart.
 */
export type StopReason = 'interrupted' | 'output-closed';

/** Why the run whose signal this is was stopped; undefined while it runs. */
export function stopReason(signal: AbortSignal | undefined): StopReason | undefined {
  if (!signal?.aborted) return undefined;
  return isOutputClosed(signal.reason) ? 'output-closed' : 'interrupted';
}

/** Whether `error` is the failure of a write to an output whose reader went away (EPIPE). */
export function isOutputClosed(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as NodeJS.ErrnoException).code === 'EPIPE';
}

/** The error of a write to an output whose reader went away (what isOutputClosed recognises). */
export function outputClosedError(message = 'standard output was closed'): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: 'EPIPE' });
}
