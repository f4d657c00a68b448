/** `svc completion bash|zsh|fish`: the script generated from the whole command tree. */
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../app/context.js';
import type { ArgsOf, OptionsOf } from '../app/verb.js';
import { completionScript } from '../features/completion.js';
import { examples } from './declare.js';

export function declare(command: Command) {
  return command
    .argument('<shell>', 'bash, zsh or fish')
    .description('print a shell completion script')
    .addHelpText(
      'after',
      examples('svc completion bash > /etc/bash_completion.d/svc', 'svc completion zsh > "${fpath[1]}/_svc"', 'svc completion fish > ~/.config/fish/completions/svc.fish'),
    );
}

export async function run(ctx: Context, _opts: OptionsOf<typeof declare>, [shell]: ArgsOf<typeof declare>): Promise<void> {
  ctx.io.streams.stdout.write(completionScript(await ctx.commandTree(), shell));
}
