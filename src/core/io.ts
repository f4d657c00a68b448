/**
 * Terminal facts in one place: TTY detection, colour, whether we may prompt, and buffered writes
 * to stdout that respect back-pressure (stdout carries data only; everything else goes to stderr).
 */
import { fstatSync } from 'node:fs';
import type { Writable, Readable } from 'node:stream';
import { onAbort, outputClosedError, stopReason } from './abort.js';
import { InterruptedError } from './errors.js';
import { terminalSafeStyled } from './sanitize.js';
import { isProcessStreams, isTerminal } from './stdio.js';

export interface IOStreams {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
}

export interface IOSettings {
  /** --no-color given */
  noColor?: boolean;
  /** --no-input given */
  noInput?: boolean;
  /** the run's interruption: a write waiting for a reader stops waiting */
  signal?: AbortSignal;
}

const FD = { stdin: 0, stdout: 1, stderr: 2 } as const;

/**
 * Whether one of the streams is a terminal. The process's own streams are made on first use (a
 * socket or file stream, and the modules behind it): for them the descriptor is asked, which is
 * what Node decides isTTY by, so a run that never reads stdin or writes stderr never makes them.
 */
function isTTY(streams: IOStreams, name: keyof typeof FD): boolean {
  if (isProcessStreams(streams)) return isTerminal(FD[name]);
  return Boolean(streams[name].isTTY);
}

export class IO {
  readonly stdoutIsTTY: boolean;
  readonly color: boolean;
  private readonly promptAllowed: boolean;
  private stderrTerminal?: boolean;
  /** explicit spinners showing now */
  private spinners = 0;
  /** network calls waiting now, the timer that shows their spinner, and that spinner */
  private waits = 0;
  private waitTimer?: NodeJS.Timeout;
  private waitSpinner?: Promise<{ stop(): void }>;
  /** a command draws its own progress on stderr */
  private ownProgress = false;

  private readonly signal?: AbortSignal;

  constructor(
    readonly streams: IOStreams,
    settings: IOSettings = {},
  ) {
    this.signal = settings.signal;
    const env = streams.env;
    this.stdoutIsTTY = isTTY(streams, 'stdout');
    const forced = colorForced(env);
    // FORCE_COLOR=0 (or false) turns colour off even on a terminal, as Node and chalk read it.
    const refused = env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false';
    // Colour follows stdout: a table redirected to a file stays plain even when stderr is a terminal.
    this.color = !settings.noColor && env.NO_COLOR === undefined && !refused && (forced || this.stdoutIsTTY);
    // stdin is asked last: a script's run (stdout no terminal) never looks at it.
    this.promptAllowed = !settings.noInput && this.stdoutIsTTY && !isTruthy(env.CI) && isTTY(streams, 'stdin');
  }

  /** Whether stderr is a terminal (asked when first needed: most runs never write there). */
  get stderrIsTTY(): boolean {
    this.stderrTerminal ??= isTTY(this.streams, 'stderr');
    return this.stderrTerminal;
  }

  /** Prompts only when both ends are a terminal, `--no-input` is absent and CI is not set. */
  canPrompt(): boolean {
    return this.promptAllowed;
  }

  /**
   * Progress bars only when a person watches stderr. Whoever asks draws its own progress there, so
   * the network-wait spinner stays off for the rest of the run (two animations on one line garble both).
   */
  showProgress(): boolean {
    const columns = this.streams.stderr.columns;
    // A terminal of 0 columns has nowhere to draw a bar.
    const shown = this.stderrIsTTY && !(typeof columns === 'number' && columns <= 0);
    if (shown) this.ownProgress = true;
    return shown;
  }

  /**
   * Whether stdout and stderr are one and the same terminal (a person reads both in one place), so a
   * line on each would say the same thing twice. Streams without a file descriptor (tests) are not.
   */
  sharesTerminal(): boolean {
    if (!this.stdoutIsTTY || !this.stderrIsTTY) return false;
    const fd = (stream: unknown) => (stream as { fd?: unknown }).fd;
    const out = fd(this.streams.stdout);
    const err = fd(this.streams.stderr);
    if (typeof out !== 'number' || typeof err !== 'number') return false;
    try {
      const [a, b] = [fstatSync(out), fstatSync(err)];
      return a.rdev === b.rdev && a.ino === b.ino;
    } catch {
      return false;
    }
  }

  /** How wide a table may be: the terminal's width, 80 when stdout is not a terminal (a table forced with -o table). */
  terminalWidth(): number {
    const columns = this.streams.stdout.columns;
    return this.stdoutIsTTY && typeof columns === 'number' && columns > 0 ? columns : DEFAULT_WIDTH;
  }

  /** The columns of stderr when it is a terminal (lines for a person fit them), else undefined. */
  stderrWidth(): number | undefined {
    const columns = this.streams.stderr.columns;
    return this.stderrIsTTY && typeof columns === 'number' && columns > 0 ? columns : undefined;
  }

  /** --jq: what every write to stdout goes through (core/jq.ts) */
  private stdoutFilter?: { chunk(text: string): Promise<void>; end(): Promise<void> };

  /** Puts a filter in front of stdout (--jq); it writes what it lets through with writeStdout. */
  filterStdout(filter: { chunk(text: string): Promise<void>; end(): Promise<void> }): void {
    this.stdoutFilter = filter;
  }

  /** Ends the stdout filter (a whole `-o json` document goes through --jq here). */
  async endStdout(): Promise<void> {
    await this.stdoutFilter?.end();
  }

  /** Writes data to stdout, waiting when the pipe is full so memory stays flat. */
  async write(chunk: string): Promise<void> {
    return this.stdoutFilter ? this.stdoutFilter.chunk(chunk) : this.writeStdout(chunk);
  }

  /** Writes to stdout itself, past any filter. */
  async writeStdout(chunk: string): Promise<void> {
    const stdout = this.streams.stdout;
    // A reader that went away (`| head -1`): the write fails at once instead of waiting for a drain that never comes.
    if (stdout.destroyed) throw outputClosedError();
    if (!stdout.write(chunk)) {
      const signal = this.signal;
      // Ctrl-C while the reader lags (or has stopped): the run stops waiting for it.
      const interrupted = () => (stopReason(signal) === 'output-closed' ? (signal!.reason as Error) : new InterruptedError());
      if (signal?.aborted) throw interrupted();
      await new Promise<void>((resolve, reject) => {
        const stopWaiting = signal ? onAbort(signal, () => onError(interrupted())) : undefined;
        const done = () => {
          stopWaiting?.();
          stdout.off('drain', onDrain);
          stdout.off('error', onError);
          stdout.off('close', onClose);
        };
        const onDrain = () => {
          done();
          resolve();
        };
        const onError = (err: Error) => {
          done();
          reject(err);
        };
        const onClose = () => {
          done();
          reject(outputClosedError());
        };
        stdout.once('drain', onDrain);
        stdout.once('error', onError);
        stdout.once('close', onClose);
      });
    }
  }

  /**
   * A spinner on stderr while a slow call runs, only when a person watches both streams (a spinner
   * beside redirected output is noise) and the terminal has columns to draw in. ora is loaded only
   * when one is shown.
   */
  async spinner(text: string): Promise<{ stop(): void }> {
    if (!this.spinnerAllowed()) return { stop: () => undefined };
    this.spinners++;
    const spinner = await this.startSpinner(text);
    let stopped = false;
    return {
      stop: () => {
        if (stopped) return;
        stopped = true;
        this.spinners--;
        spinner.stop();
      },
    };
  }

  /**
   * Marks a network wait (the HTTP core calls it as a call starts and the returned function as it
   * ends). When calls have been waiting for SPINNER_DELAY_MS, a spinner shows on stderr until none is;
   * a fast answer shows nothing, and nothing is ever written where spinner() would not write.
   */
  networkWait(): () => void {
    if (!this.spinnerAllowed()) return () => undefined;
    this.waits++;
    if (this.waits === 1) {
      this.waitTimer = setTimeout(() => {
        this.waitTimer = undefined;
        if (this.waits === 0 || this.spinners > 0 || this.ownProgress) return;
        const starting = this.startSpinner('Waiting for the API…');
        this.waitSpinner = starting;
        void starting.then((spinner) => {
          // The wait may have ended while ora was loading.
          if (this.waitSpinner !== starting) spinner.stop();
        });
      }, SPINNER_DELAY_MS);
      this.waitTimer.unref?.();
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.waits--;
      if (this.waits > 0) return;
      clearTimeout(this.waitTimer);
      this.waitTimer = undefined;
      const spinner = this.waitSpinner;
      this.waitSpinner = undefined;
      void spinner?.then((started) => started.stop());
    };
  }

  private spinnerAllowed(): boolean {
    const stderr = this.streams.stderr as IOStreams['stderr'] & { cursorTo?: unknown };
    // A terminal of 0 columns has nowhere to draw: ora would redraw there without end. A stream that
    // cannot move the cursor is no terminal ora can draw on.
    const drawable = typeof stderr.columns === 'number' && stderr.columns > 0 && typeof stderr.cursorTo === 'function';
    return this.stdoutIsTTY && this.stderrIsTTY && drawable;
  }

  private async startSpinner(text: string): Promise<{ stop(): void }> {
    const { default: ora } = await import('ora');
    // discardStdin off: a prompt or `--from-file -` may be reading stdin.
    return ora({ text, stream: this.streams.stderr, color: this.color ? 'cyan' : false, isEnabled: true, discardStdin: false }).start();
  }

  /**
   * One line on stderr (hints, notices, errors), through the sanitizer's last guard: svc's colours
   * kept, any control character from a server's text that reached here unescaped made visible.
   */
  info(line: string): void {
    this.streams.stderr.write(`${terminalSafeStyled(line)}\n`);
  }
}


const DEFAULT_WIDTH = 80;
/** a wait shorter than this shows nothing */
export const SPINNER_DELAY_MS = 300;

/** FORCE_COLOR set to anything but 0 or false: colour even where no terminal is. */
export function colorForced(env: NodeJS.ProcessEnv): boolean {
  return env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
}

function isTruthy(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}
