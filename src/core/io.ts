/**
 * Terminal facts in one place: TTY detection, colour, whether we may prompt, and buffered writes
 * to stdout that respect back-pressure (stdout carries data only; everything else goes to stderr).
 */
import type { Writable, Readable } from 'node:stream';

export interface IOStreams {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export interface IOSettings {
  /** --no-color given */
  noColor?: boolean;
  /** --no-input given */
  noInput?: boolean;
}

export class IO {
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly color: boolean;
  private readonly promptAllowed: boolean;

  constructor(
    readonly streams: IOStreams,
    settings: IOSettings = {},
  ) {
    const env = streams.env;
    this.stdoutIsTTY = Boolean(streams.stdout.isTTY);
    this.stderrIsTTY = Boolean(streams.stderr.isTTY);
    const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
    // Colour follows stdout: a table redirected to a file stays plain even when stderr is a terminal.
    this.color = !settings.noColor && env.NO_COLOR === undefined && (forced || this.stdoutIsTTY);
    this.promptAllowed =
      !settings.noInput && Boolean(streams.stdin.isTTY) && this.stdoutIsTTY && !isTruthy(env.CI);
  }

  /** Prompts only when both ends are a terminal, `--no-input` is absent and CI is not set. */
  canPrompt(): boolean {
    return this.promptAllowed;
  }

  /** Spinners and progress bars only when a person watches stderr. */
  showProgress(): boolean {
    return this.stderrIsTTY;
  }

  /** Writes data to stdout, waiting when the pipe is full so memory stays flat. */
  async write(chunk: string): Promise<void> {
    const stdout = this.streams.stdout;
    if (!stdout.write(chunk)) {
      await new Promise<void>((resolve, reject) => {
        const onDrain = () => {
          stdout.off('error', onError);
          resolve();
        };
        const onError = (err: Error) => {
          stdout.off('drain', onDrain);
          reject(err);
        };
        stdout.once('drain', onDrain);
        stdout.once('error', onError);
      });
    }
  }

  /**
   * A spinner on stderr while a slow call runs, only when a person watches both streams (a spinner
   * beside redirected output is noise). ora is loaded only when one is shown.
   */
  async spinner(text: string): Promise<{ stop(): void }> {
    if (!this.stdoutIsTTY || !this.stderrIsTTY) return { stop: () => undefined };
    const { default: ora } = await import('ora');
    const spinner = ora({ text, stream: this.streams.stderr, color: this.color ? 'cyan' : false }).start();
    return { stop: () => spinner.stop() };
  }

  /** One line on stderr (hints, notices, errors). */
  info(line: string): void {
    this.streams.stderr.write(`${line}\n`);
  }
}

function isTruthy(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}
