/** `svc __complete profiles` (hidden): values only svc can list for the completion scripts (saved profile names; never keys). */
import type { Command } from 'commander';
import type { Context } from '../app/context.js';
import { completionValues } from '../features/completion.js';
import { examples } from './declare.js';

export function declare(command: Command): void {
  command.argument('<what>', 'profiles').description('print completion candidates, one a line').addHelpText('after', examples('svc __complete profiles'));
}

export async function run(ctx: Context, _opts: unknown, [what]: string[]): Promise<void> {
  ctx.io.streams.stdout.write(await completionValues(what, () => ctx.config()));
}
