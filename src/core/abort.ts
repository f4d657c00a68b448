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
