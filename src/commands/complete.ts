/** `svc __complete profiles` (hidden): values only svc can list for the completion scripts (saved profile names; never keys). */
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../app/context.js';
import type { ArgsOf, OptionsOf } from '../app/verb.js';
import { completionValues } from '../features/completion.js';
import { examples } from './declare.js';

export function declare(command: Command) {
  return command.argument('<what>', 'profiles').description('print completion candidates, one a line').addHelpText('after', examples('svc __complete profiles'));
}

export async function run(ctx: Context, _opts: OptionsOf<typeof declare>, [what]: ArgsOf<typeof declare>): Promise<void> {
  ctx.io.streams.stdout.write(await completionValues(what, () => ctx.config()));
}
