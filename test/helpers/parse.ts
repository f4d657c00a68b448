/**
 * Parses a command line the way `svc` does and stops there, as gh's `runF`: the verb is not run, and
 * what commander handed it is returned (its options and arguments, and the options with the globals,
 * which become the Context's). A parse error rejects with commander's error.
 */
import { PassThrough } from 'node:stream';
import { buildProgram } from '../../src/cli.js';
import type { Declare, OptionsOf, ArgsOf } from '../../src/app/verb.js';
import type { GlobalOptions } from '../../src/app/context.js';
import type { IOStreams } from '../../src/core/io.js';

export interface Parsed<D extends Declare> {
  options: OptionsOf<D>;
  args: ArgsOf<D>;
  /** the options with the global ones (what the verb's Context gets) */
  globals: GlobalOptions;
}

/** `parseVerb<typeof declare>(['links', 'cancel', ID, '--reason', 'x'])`: what `links cancel` would run with. */
export async function parseVerb<D extends Declare = Declare>(argv: string[], env: Record<string, string> = {}): Promise<Parsed<D>> {
  const streams = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough(), env } as unknown as IOStreams;
  let parsed: Parsed<D> | undefined;
  const { program } = buildProgram({
    streams,
    argv,
    signal: new AbortController().signal,
    attach(command) {
      command.action((...values: unknown[]) => {
        parsed = { options: command.opts() as OptionsOf<D>, args: values.slice(0, -2) as ArgsOf<D>, globals: command.optsWithGlobals() };
      });
    },
  });
  await program.parseAsync(argv, { from: 'user' });
  if (!parsed) throw new Error(`no verb ran for: ${argv.join(' ')}`);
  return parsed;
}
