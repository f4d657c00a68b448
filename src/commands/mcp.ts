/**
 * `svc mcp [--allow-write] [--tools a,b]`: serves svc's reads (and, when allowed, its writes) to an
 * AI assistant over the Model Context Protocol on stdio. The tools and the server (with the MCP SDK)
 * are loaded here, when the verb runs, so no other command's start-up carries them (src/features/mcp/).
 */
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../app/context.js';
import type { OptionsOf } from '../app/verb.js';
import { examples } from './declare.js';

export function declare(command: Command) {
  return command
    .description('serve the API and svc\'s support tools to an AI assistant (Model Context Protocol over stdio)')
    .option('--allow-write', 'also list the tools that change data: links_create, links_cancel, orders_place')
    .option('--tools <a,b>', 'list only these tools (names as the assistant sees them)')
    .addHelpText(
      'after',
      examples('svc --profile sandbox mcp', 'svc mcp --allow-write', 'svc mcp --tools inspect,events_stats,refunds_due') +
        '\nstdout carries protocol messages only; notes go to stderr. docs/mcp.md shows how to add svc to an assistant.\n',
    );
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<void> {
  const tools = opts.tools?.split(',').map((name) => name.trim()).filter(Boolean);
  const allowWrite = Boolean(opts.allowWrite);
  const { chosenTools } = await import('../features/mcp/tools.js');
  const chosen = await chosenTools({ allowWrite, tools });
  // The key is checked before serving: a broken profile is one error line and an exit code, as for any command.
  await ctx.client();
  const { serveMcp } = await import('../features/mcp/server.js');
  await serveMcp(ctx, chosen, allowWrite);
}
