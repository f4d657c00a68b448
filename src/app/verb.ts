/**
 * What a verb is to the app: its module declares the command (flags, arguments, help, examples) on
 * the commander node made for it and returns it, and `run` does the work with the options and
 * arguments commander parsed, typed from that declaration:
 *
 *   export function declare(command: Command) {
 *     return command.argument('<id>', 'link id').option('--reason <text>', 'why');
 *   }
 *   export async function run(ctx: Context, opts: OptionsOf<typeof declare>, [id]: ArgsOf<typeof declare>) { … }
 *
 * A renamed or retyped flag then fails type-checking where `run` uses it. A group's index lists its
 * verbs, each loaded only when it runs (or when the group's help lists them).
 */
import type { ArgsOf, Declare, OptionsOf } from './commander.js';
import type { Context } from './context.js';

export type { ArgsOf, Declare, OptionsOf };

export interface VerbModule<D extends Declare = Declare> {
  declare: D;
  /** Parsing is done; returns an exit code, or nothing for success. */
  run(ctx: Context, opts: OptionsOf<D>, args: ArgsOf<D>): Promise<number | void>;
}

export type VerbTable = Readonly<Record<string, () => Promise<VerbModule>>>;
