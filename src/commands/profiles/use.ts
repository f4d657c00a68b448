import type { Context } from '../../core/context.js';
import { UsageError } from '../../core/errors.js';

export async function run(ctx: Context, _opts: unknown, [name]: string[]): Promise<void> {
  const config = await ctx.config();
  if (!config.getProfile(name)) throw new UsageError(`no profile named ${name}`, `see svc profiles ls, or create it with svc login --profile ${name}`);
  await config.setCurrentProfile(name);
  ctx.io.info(`Default profile is now ${name}.`);
}
