/**
 * Runs an async function over a stream of items with bounded concurrency and yields the results in
 * input order as soon as each is next in line. At most `window` items are read ahead of the oldest
 * unfinished one, so memory stays flat however long the input is, and a slow item holds back output
 * (not work) for at most `window` rows.
 */
export interface OrderedOptions {
  /** how many calls of `fn` run at once */
  concurrency: number;
  /** how many items may be started or finished but not yet yielded; at least `concurrency` */
  window: number;
}

export async function* mapOrdered<T, R>(source: AsyncIterable<T>, fn: (item: T) => Promise<R>, options: OrderedOptions): AsyncGenerator<R> {
  const slots = new Slots(options.concurrency);
  const window = Math.max(options.window, options.concurrency);
  const queue: Promise<R>[] = [];
  const iterator = source[Symbol.asyncIterator]();
  let exhausted = false;
  try {
    for (;;) {
      while (!exhausted && queue.length < window) {
        const next = await iterator.next();
        if (next.done) exhausted = true;
        else queue.push(track(slots.run(() => fn(next.value))));
      }
      const head = queue.shift();
      if (head === undefined) return;
      yield await head;
    }
  } finally {
    // Stopped early (an error or the consumer broke off): let running calls settle quietly.
    await Promise.allSettled(queue);
    await iterator.return?.();
  }
}

/** Marks a rejection as handled until it is awaited in turn, so a later row's failure does not crash the process first. */
function track<R>(promise: Promise<R>): Promise<R> {
  promise.catch(() => undefined);
  return promise;
}

/** A counting semaphore that admits waiters first come, first served (the oldest row starts first). */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<R>(fn: () => Promise<R>): Promise<R> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
