/**
 * Terminal I/O for tests, in one place: captured streams (a terminal or a pipe), scripted prompt
 * answers, and a Context built whole from them (`testContext`), with a client, prompter or keyring
 * in place of the real ones.
 */
import { PassThrough } from 'node:stream';
import { Context, type Dependencies, type GlobalOptions } from '../../src/app/context.js';
import type { IOStreams } from '../../src/core/io.js';
import type { Choice, Prompter } from '../../src/core/prompter.js';

type Stream = 'stdin' | 'stdout' | 'stderr';

export interface TerminalOptions {
  /** which streams are a terminal: all (true), none (false: pipes, the default), or each by name */
  tty?: boolean | Partial<Record<Stream, boolean>>;
  /** the width of stdout and stderr where they are a terminal */
  columns?: number;
  /** the environment; NO_COLOR=1 unless it says otherwise */
  env?: Record<string, string | undefined>;
  /** what stdin holds, then it ends; without it stdin stays open */
  input?: string;
}

export interface TestTerminal {
  streams: IOStreams;
  /** what was written to stdout so far (after `settled()`, all of it) */
  readonly stdout: string;
  readonly stderr: string;
  /** Lets the streams deliver what was written (a PassThrough delivers on a later tick). */
  settled(): Promise<void>;
}

export function testTerminal({ tty = false, columns, env = {}, input }: TerminalOptions = {}): TestTerminal {
  const isTTY = (name: Stream) => (typeof tty === 'boolean' ? tty : Boolean(tty[name]));
  const stream = (name: Stream) => {
    const passThrough = new PassThrough();
    if (!isTTY(name)) return passThrough;
    return Object.assign(passThrough, { isTTY: true }, columns !== undefined && name !== 'stdin' ? { columns } : {});
  };
  const captured = { stdout: '', stderr: '' };
  const stdin = stream('stdin');
  const stdout = stream('stdout');
  const stderr = stream('stderr');
  stdout.on('data', (chunk) => (captured.stdout += chunk));
  stderr.on('data', (chunk) => (captured.stderr += chunk));
  if (input !== undefined) stdin.end(input);
  return {
    streams: { stdin, stdout, stderr, env: { NO_COLOR: '1', ...env } } as unknown as IOStreams,
    get stdout() {
      return captured.stdout;
    },
    get stderr() {
      return captured.stderr;
    },
    settled: () => new Promise((resolve) => setImmediate(resolve)),
  };
}

export interface TestContextOptions extends TerminalOptions, Dependencies {
  /** the global options, as commander hands them over */
  options?: GlobalOptions;
  signal?: AbortSignal;
}

/** A Context on a test terminal, built whole: the client, prompter and keyring given are the ones it uses. */
export function testContext({ options = {}, signal = new AbortController().signal, client, prompter, secretStore, ...terminalOptions }: TestContextOptions = {}): {
  ctx: Context;
  terminal: TestTerminal;
} {
  const terminal = testTerminal(terminalOptions);
  return { ctx: new Context({ options, streams: terminal.streams, signal, client, prompter, secretStore }), terminal };
}

export type ScriptedPrompter = Prompter & { asked: string[] };

/**
 * Answers prompts in order; each step names (part of) the prompt it expects, so a changed flow fails
 * loudly. A select's answer names the choice: its whole name, or else a part of it.
 */
export function scriptedPrompter(steps: [string, unknown][]): ScriptedPrompter {
  const asked: string[] = [];
  const next = (message: string, choices?: Choice<unknown>[]) => {
    asked.push(message);
    const step = steps.shift();
    if (!step || !message.includes(step[0])) throw new Error(`unexpected prompt: ${message}`);
    if (choices) {
      const answer = String(step[1]);
      const choice = choices.find((c) => c.name === answer) ?? choices.find((c) => c.name.includes(answer));
      if (!choice) throw new Error(`no choice ${answer} in ${choices.map((c) => c.name).join(', ')}`);
      return choice.value;
    }
    return step[1];
  };
  return {
    asked,
    input: async (message) => next(message) as string,
    password: async (message) => next(message) as string,
    confirm: async (message) => next(message) as boolean,
    select: async (message, choices) => next(message, choices as Choice<unknown>[]) as never,
    search: async (message, choices) => next(message, choices as Choice<unknown>[]) as never,
  };
}
