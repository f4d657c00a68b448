/**
 * `--jq EXPR`: every JSON value a command prints on stdout goes through a jq program, and each
 * result is printed on its own line (strings raw, objects compact: `jq -r -c`). The engine is jq
 * itself compiled to WebAssembly (the jq-wasm package), loaded only when --jq is given.
 *
 * It sits in front of stdout (IO's stdout filter): with JSON lines each complete line is a value and
 * goes through as it arrives (`events tail --follow` keeps streaming); with `-o json` the whole
 * document is collected and goes through once, at the end. A jq error (compile or runtime) is exit 2
 * with jq's own message.
 */
import { ExitCode, SvcError } from './errors.js';
import { terminalSafe } from './sanitize.js';

export class JqError extends SvcError {
  constructor(stderr: string) {
    const message = stderr
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .join(' ');
    super(message || 'jq failed', ExitCode.usage, 'jq_error');
  }
}

interface Engine {
  raw(input: string, query: string, flags?: string[]): { stdout: string; stderr: string; exitCode: number };
}

/** jq's exit status for a program that does not compile. */
const COMPILE_ERROR = 3;

let engine: Promise<Engine> | undefined;
function loadEngine(): Promise<Engine> {
  engine ??= import('jq-wasm').then(({ loadJq }) => loadJq());
  return engine;
}

/** A compiled-and-checked jq program: `run` takes JSON text (one or more values) and returns the output lines. */
export class JqProgram {
  private constructor(
    private readonly jq: Engine,
    readonly program: string,
  ) {}

  /**
   * Loads jq and checks that the program compiles, without running it (so a typo is exit 2 before any
   * request is sent): the program is placed in a branch jq never takes.
   */
  static async compile(program: string): Promise<JqProgram> {
    const jq = await loadEngine();
    const check = jq.raw('null', `if false then (${program}\n) else empty end`, ['-n']);
    if (check.exitCode === COMPILE_ERROR) {
      // jq's own message, about the program as written.
      const own = jq.raw('null', program, ['-n']);
      if (own.exitCode === COMPILE_ERROR) throw new JqError(own.stderr);
    }
    return new JqProgram(jq, program);
  }

  /**
   * The program's results for each JSON value in `input`, one per line; [] for none. jq writes each
   * result as compact JSON (one line each, whatever it holds); a string is then printed raw, as
   * `jq -r` does, an empty string as an empty line; other values as jq wrote them (big numbers exact).
   */
  run(input: string): string[] {
    const result = this.jq.raw(input, this.program, ['-c']);
    const lines = result.stdout === '' ? [] : result.stdout.replace(/\n$/, '').split('\n').map((line) => (line.startsWith('"') ? (JSON.parse(line) as string) : line));
    // jq goes on with the next value after a run-time error and says so on stderr (the wasm build
    // does not always set the exit status): any error line fails the run.
    const errors = result.stderr.split('\n').filter((line) => line.startsWith('jq: error'));
    if (result.exitCode !== 0 || errors.length > 0) throw Object.assign(new JqError(errors.length > 0 ? errors.join('\n') : result.stderr), { partial: lines });
    return lines;
  }
}

/**
 * What stands in front of stdout with --jq. `document`: the output is one JSON document (`-o json`),
 * run through jq once at `end()`; otherwise each complete line is a JSON value, run as it arrives.
 */
export class JqStdout {
  private pending = '';

  constructor(
    private readonly program: JqProgram,
    private readonly document: boolean,
    private readonly write: (text: string) => Promise<void>,
    private readonly terminal: boolean,
  ) {}

  async chunk(text: string): Promise<void> {
    this.pending += text;
    if (this.document) return;
    const cut = this.pending.lastIndexOf('\n');
    if (cut < 0) return;
    const complete = this.pending.slice(0, cut + 1);
    this.pending = this.pending.slice(cut + 1);
    await this.emit(complete);
  }

  async end(): Promise<void> {
    const rest = this.pending;
    this.pending = '';
    await this.emit(rest);
  }

  private async emit(input: string): Promise<void> {
    if (input.trim() === '') return;
    let lines: string[];
    try {
      lines = this.program.run(input);
    } catch (error) {
      // What jq printed before its error is printed too, as jq does.
      const partial = (error as { partial?: string[] }).partial ?? [];
      if (partial.length > 0) await this.write(this.format(partial));
      throw error;
    }
    if (lines.length > 0) await this.write(this.format(lines));
  }

  private format(lines: string[]): string {
    const text = `${lines.join('\n')}\n`;
    // Raw strings are the server's data: on a terminal, control characters are shown, never run.
    return this.terminal ? terminalSafe(text) : text;
  }
}
