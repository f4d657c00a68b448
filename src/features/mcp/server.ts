/**
 * `svc mcp`: the Model Context Protocol over stdio (the official TypeScript SDK), with the profile's
 * key. Loaded only by `svc mcp` (the verb imports this module when it runs, after the tools and the
 * key are checked). stdout carries protocol messages only; anything for people goes to stderr.
 */
import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Context } from '../../app/context.js';
import { VERSION } from '../../version.js';
import { knownSecrets } from '../webhook-secret.js';
import { dataResult, errorResult } from './result.js';
import { callOf, type Tool } from './tool.js';

/** Serves until the client closes stdin or the run is interrupted. */
export async function serveMcp(ctx: Context, tools: Tool[], allowWrite: boolean): Promise<void> {
  const client = await ctx.client();
  const profile = await ctx.profile();
  const secrets = [profile.apiKey ?? '', profile.webhookSecret ?? '', ...(await knownSecrets(ctx).catch(() => [])).map((known) => known.secret)];

  const server = new McpServer({ name: 'svc', version: VERSION }, { capabilities: { tools: {} } });
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: fromJsonSchema<Record<string, unknown>>(tool.schema), annotations: { title: tool.title, ...tool.hints } },
      async (args, extra) => {
        const signal = AbortSignal.any([ctx.signal, extra.mcpReq.signal]);
        try {
          return dataResult(await tool.run(args, callOf(ctx, client, signal)), secrets);
        } catch (error) {
          return errorResult(error, secrets);
        }
      },
    );
  }

  const transport = new ClosingTransport(ctx.io.streams.stdin, ctx.io.streams.stdout);
  transport.onerror = (error) => ctx.io.info(`mcp: ${error.message}`);
  const stop = () => void server.close();
  ctx.signal.addEventListener('abort', stop, { once: true });
  ctx.io.info(`svc mcp: serving ${tools.length} tools over stdio (profile ${profile.name}${allowWrite ? ', writes allowed' : ', read-only'})`);
  try {
    await server.connect(transport);
    await transport.closed;
  } finally {
    ctx.signal.removeEventListener('abort', stop);
  }
}

/** The SDK's stdio transport, with a promise that settles when it closes (stdin ended, or close()). */
class ClosingTransport extends StdioServerTransport {
  private settle!: () => void;
  readonly closed = new Promise<void>((resolve) => (this.settle = resolve));

  override async close(): Promise<void> {
    await super.close();
    this.settle();
  }
}
