/** Which events `events tail` shows: `--type` filters and the `-n` window over the catch-up. */

/**
 * `--type` values: an exact type, a prefix ending in `.` (`order.`) or `.*` (`order.*`), or a bare
 * group (`order`, meaning `order.`). No filters shows every event, unknown types included.
 */
export function typeFilter(types: readonly string[] | undefined): (type: unknown) => boolean {
  const wanted = (types ?? []).map((type) => type.trim()).filter((type) => type !== '');
  if (wanted.length === 0) return () => true;
  return (type) =>
    typeof type === 'string' &&
    wanted.some((want) => {
      const prefix = want.endsWith('.*') ? want.slice(0, -1) : want.endsWith('.') ? want : null;
      return prefix !== null ? type.startsWith(prefix) : type === want || type.startsWith(`${want}.`);
    });
}

/** The last `capacity` items pushed, in order; memory stays bounded however long the catch-up. */
export class RingBuffer<T> {
  private readonly items: T[] = [];
  private start = 0;

  constructor(private readonly capacity: number) {}

  push(item: T): void {
    if (this.capacity === 0) return;
    if (this.items.length < this.capacity) {
      this.items.push(item);
      return;
    }
    this.items[this.start] = item;
    this.start = (this.start + 1) % this.capacity;
  }

  /** The kept items, oldest first. */
  toArray(): T[] {
    return [...this.items.slice(this.start), ...this.items.slice(0, this.start)];
  }
}
