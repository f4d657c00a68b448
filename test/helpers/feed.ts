import type { FeedElement } from '../../src/features/events/feed.js';

/** The first `max` elements a feed yields, and the error it ended with, if any. */
export async function collect(source: AsyncGenerator<FeedElement>, max: number): Promise<{ out: FeedElement[]; error: unknown }> {
  const out: FeedElement[] = [];
  try {
    for await (const element of source) if (out.push(element) >= max) break;
  } catch (error) {
    return { out, error };
  }
  return { out, error: undefined };
}
