/**
 * Running svc once: signals, a closed stdout, parsing by commander, the verb's action, and the one
 * place where errors become exit codes and lines on stderr. Only bin/ exits.
 */
import { CommanderError, type Command } from 'commander';
import { DeclinedError, ExitCode, SvcError, UsageError, errorLines, problemLine } from '../core/errors.js';
import { isOutputClosed, stopReason } from '../core/abort.js';
import { colorForced, type IOStreams } from '../core/io.js';
import { terminalSafe, terminalSafeLine } from '../core/sanitize.js';
import { Context, type Dependencies, type GivenGlobal } from './context.js';
import type { VerbModule } from './verb.js';

/** What building the command tree needs from this run, and what it hands back. */
export interface Runtime {
  streams: IOStreams;
  /** the run's arguments (none for a tree that runs nothing) */
  argv?: readonly string[];
  signal: AbortSignal;
  /** Makes `command` run `verb` with a Context for this run. */
  attach(command: Command, verb: VerbModule): void;
}

interface RunState {
  exitCode: number;
  context?: Context;
}

export type ProgramBuilder = (runtime: Runtime) => { program: Command; tree: () => Promise<Command> };

/** Runs svc with these arguments; returns the exit code. `deps` (tests) stand in for the keyring, prompts or API client. */
export async function runMain(argv: string[], streams: IOStreams, build: ProgramBuilder, deps: Dependencies = {}): Promise<number> {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(ExitCode.interrupted);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed terminal (SIGHUP) stops a run as Ctrl-C does, so what it changed is put back (the
  // webhook URL `webhooks listen` registered). Node resets an inherited ignore anyway (`nohup`).
  process.on('SIGHUP', onSignal);
  // A reader that goes away (`svc links ls --all | head`) is not an error: stop quietly with 0.
  // The listener stays for the life of the process: help text may still be flushing after main returns.
  streams.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (!isOutputClosed(error)) return;
    // The reason tells a closed output from Ctrl-C (stopReason; bulk lets the rows already sent finish).
    controller.abort(error);
  });
  const state: RunState = { exitCode: ExitCode.ok };
  let program: Command | undefined;
  let tree: () => Promise<Command> = () => Promise.reject(new Error('no command tree'));
  const runtime: Runtime = {
    streams,
    argv,
    signal: controller.signal,
    attach(command, verb) {
      command.action(async (...args: unknown[]) => {
        const context = new Context({ ...deps, options: command.optsWithGlobals(), streams, signal: controller.signal, run: { given: givenGlobals(program!), tree } });
        state.context = context;
        await context.start();
        // The arguments as commander processed them (a variadic one is an array), then the options.
        const code = await verb.run(context, command.opts(), args.slice(0, -2));
        await context.finish();
        state.exitCode = typeof code === 'number' ? code : ExitCode.ok;
      });
    },
  };
  ({ program, tree } = build(runtime));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return state.exitCode;
  } catch (error) {
    if (stopReason(controller.signal) === 'output-closed' || isOutputClosed(error)) return ExitCode.ok;
    return reportError(error, streams, program.opts(), state.context, controller.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    await state.context?.close().catch(() => undefined);
  }
}

/** Where commander writes help and its own messages: the run's streams, never process.*. */
export function outputOf(streams: IOStreams) {
  return { writeOut: (text: string) => streams.stdout.write(text), writeErr: (text: string) => streams.stderr.write(text), outputError: () => undefined };
}

/** The global options given for this run (command line or environment), as commander parsed them, for hints that repeat them. */
function givenGlobals(program: Command): GivenGlobal[] {
  return program.options.flatMap((option) => {
    const name = option.attributeName();
    const source = program.getOptionValueSource(name);
    const value: unknown = program.getOptionValue(name);
    if ((source !== 'cli' && source !== 'env') || value === undefined || !option.long) return [];
    return [{ flag: option.long, value: typeof value === 'string' ? value : Boolean(value) }];
  });
}

interface ParsedGlobals {
  output?: string;
  debug?: boolean;
  /** false with --no-color */
  color?: boolean;
}

function reportError(error: unknown, streams: IOStreams, globals: ParsedGlobals, context: Context | undefined, signal: AbortSignal): number {
  const jsonErrors = context?.options.output ? context.format === 'json' || context.format === 'jsonl' : globals.output === 'json' || globals.output === 'jsonl';
  // `error:` in red where a person watches stderr and colour is on (the rest stays plain).
  const red = !jsonErrors && streams.env.NO_COLOR === undefined && globals.color !== false && (colorForced(streams.env) || Boolean(streams.stderr.isTTY));
  const write = (line: string) => streams.stderr.write(`${red ? line.replace(/^error:/, '\x1b[31merror:\x1b[39m') : line}\n`);
  const json = (problem: unknown) => problemLine(problem, Boolean(streams.stderr.isTTY));
  if (error instanceof CommanderError) {
    // Help and --version end with code 0; help shown for a bare group is a usage error; so is every parse error.
    if (error.exitCode === 0) return ExitCode.ok;
    if (error.code === 'commander.help') {
      // A group named without a verb (`svc links`): its help is already on stderr; say what is missing.
      write(jsonErrors ? JSON.stringify({ code: 'usage_error', detail: 'missing command' }) : 'error: usage_error: missing command (see the list above)');
      return ExitCode.usage;
    }
    const [detail, ...more] = scrubOptionValues(error.message).replace(/^error: /, '').split('\n');
    if (jsonErrors) write(json({ code: 'usage_error', detail }));
    else write([`error: usage_error: ${terminalSafeLine(detail)}`, ...more.map((line) => `hint: ${terminalSafeLine(line.replace(/^\((.*)\)$/, '$1'))}`)].join('\n'));
    return ExitCode.usage;
  }
  const debug = context?.debugEnabled || globals.debug || streams.env.SVC_DEBUG === '1';
  const promptExit = error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError');
  if (promptExit || (signal.aborted && !(error instanceof SvcError))) {
    if (jsonErrors) write(JSON.stringify({ code: 'interrupted', detail: 'interrupted' }));
    return ExitCode.interrupted;
  }
  if (error instanceof DeclinedError) {
    streams.stderr.write(`${terminalSafeLine(error.message)}\n`);
    return ExitCode.ok;
  }
  if (error instanceof SvcError) {
    // Ctrl-C is the user's own doing: exit 130 without an error line.
    if (error.exitCode === ExitCode.interrupted && !jsonErrors) return error.exitCode;
    if (jsonErrors) write(json(error.toProblem()));
    else for (const line of errorLines(error)) write(line);
    if (debug && error.stack) write(terminalSafe(error.stack));
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  write(jsonErrors ? json({ code: 'internal_error', detail: message }) : `error: internal_error: ${terminalSafeLine(message)}`);
  if (debug && error instanceof Error && error.stack) write(terminalSafe(error.stack));
  else write('hint: run again with --debug for details, and report it if it persists');
  return ExitCode.refused;
}

/** A parse error never repeats what followed an `=` in an option (it may be a secret typed in the wrong place). */
function scrubOptionValues(message: string): string {
  return message.replace(/'(-{1,2}[^'=\s]+)=[^']+'/g, "'$1=…'");
}

/** Flags people try for secrets; a secret is never a flag value (shell history, `ps`), so these are refused. */
export const SECRET_FLAGS = ['--api-key', '--apikey', '--key', '--webhook-secret', '--secret', '--token'] as const;

/** The refusal of `--api-key VALUE` and the like, raised while commander parses: VALUE is never repeated. */
export function secretFlagRefusal(flag: string): UsageError {
  const pipe = flag.includes('secret') ? 'printf "%s\\n%s\\n" "$KEY" "$SECRET" | svc login --api-key-stdin --webhook-secret-stdin' : 'printf "%s\\n" "$KEY" | svc login --api-key-stdin';
  return new UsageError(`${flag}: secrets are never taken as flag values (they would stay in shell history and process lists); the value was not used`, `pipe it instead: ${pipe}`);
}
