import type { Context } from '../../core/context.js';
import { UsageError } from '../../core/errors.js';

export async function run(ctx: Context, _opts: unknown, [name]: string[]): Promise<void> {
  const config = await ctx.config();
  if (!(await config.deleteProfile(name))) throw new UsageError(`no profile named ${name}`, 'see svc profiles ls');
  ctx.io.info(`Removed profile ${name}.`);
}
