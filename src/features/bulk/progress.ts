/**
 * The bulk progress bar on stderr: rows done (of the total when known), rate and ETA, redrawn at
 * most every 100 ms on one line and cleared at the end, so the summary line stands alone. The ETA
 * counts rate-limit waits: never less than the pacer says the remaining rows need.
 */
import type { IO } from '../../core/io.js';

const REDRAW_MS = 100;
const BAR_WIDTH = 24;

export class Progress {
  private readonly started = performance.now();
  private done = 0;
  private failed = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly io: IO,
    private readonly total: number | undefined,
    /** the least time (ms) the rate limit needs to start this many more requests (the client's pacer) */
    private readonly pacedMs: (remaining: number) => number = () => 0,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.draw(), REDRAW_MS);
    this.timer.unref();
  }

  update(done: number, failed: number): void {
    this.done = done;
    this.failed = failed;
  }

  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.io.streams.stderr.write('\r\x1b[K');
  }

  private draw(): void {
    const remaining = this.total === undefined ? 0 : this.total - this.done;
    this.io.streams.stderr.write(`\r\x1b[K${progressLine(this.done, this.failed, this.total, performance.now() - this.started, this.pacedMs(remaining))}`);
  }
}

/**
 * e.g. `[██████░░░░]  120/400  30%  19.8 rows/s  ETA 14s  2 failed`. The ETA is the longer of the
 * remaining rows at the rate so far and `pacedMs`, the rate limit's own least wait for them (a run
 * that starts with a burst below the limit would otherwise promise that rate for every row).
 */
export function progressLine(done: number, failed: number, total: number | undefined, elapsedMs: number, pacedMs = 0): string {
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const parts: string[] = [];
  if (total !== undefined && total > 0) {
    const filled = Math.round((Math.min(done, total) / total) * BAR_WIDTH);
    parts.push(`[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}]`, `${done}/${total}`, `${Math.floor((done / total) * 100)}%`);
  } else {
    parts.push(`${done} rows`);
  }
  parts.push(`${rate.toFixed(1)} rows/s`);
  if (total !== undefined && rate > 0 && done < total) parts.push(`ETA ${formatSeconds(Math.max((total - done) / rate, pacedMs / 1000))}`);
  if (failed > 0) parts.push(`${failed} failed`);
  return parts.join('  ');
}

function formatSeconds(seconds: number): string {
  const whole = Math.ceil(seconds);
  return whole < 60 ? `${whole}s` : `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
}
