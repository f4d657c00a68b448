import type { Context } from '../../app/context.js';
import { noSuchProfile, validateProfileName } from '../../core/config.js';
import type { Command } from 'commander';
import { examples } from '../declare.js';

export function declare(command: Command): void {
  command
    .argument('<name>', 'profile name')
    .description('make a profile the default')
    .addHelpText('after', examples('svc profiles use sandbox'));
}

export async function run(ctx: Context, _opts: unknown, [name]: string[]): Promise<void> {
  validateProfileName(name, 'profile name');
  const config = await ctx.config();
  if (!config.getProfile(name)) throw noSuchProfile(name, `see svc profiles ls, or create it with svc login --profile ${name}`);
  await config.setCurrentProfile(name);
  ctx.io.info(`Default profile is now ${name}.`);
}
