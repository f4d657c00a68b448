/** `svc completion bash|zsh|fish`: the script generated from the whole command tree. */
import type { Command } from 'commander';
import type { Context } from '../app/context.js';
import { completionScript } from '../features/completion.js';
import { examples } from './declare.js';

export function declare(command: Command): void {
  command
    .argument('<shell>', 'bash, zsh or fish')
    .description('print a shell completion script')
    .addHelpText(
      'after',
      examples('svc completion bash > /etc/bash_completion.d/svc', 'svc completion zsh > "${fpath[1]}/_svc"', 'svc completion fish > ~/.config/fish/completions/svc.fish'),
    );
}

export async function run(ctx: Context, _opts: unknown, [shell]: string[]): Promise<void> {
  ctx.io.streams.stdout.write(completionScript(await ctx.commandTree(), shell));
}
