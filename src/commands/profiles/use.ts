import type { Context } from '../../app/context.js';
import type { ArgsOf, OptionsOf } from '../../app/verb.js';
import { noSuchProfile, validateProfileName } from '../../core/config.js';
import type { Command } from '@commander-js/extra-typings';
import { examples } from '../declare.js';

export function declare(command: Command) {
  return command
    .argument('<name>', 'profile name')
    .description('make a profile the default')
    .addHelpText('after', examples('svc profiles use sandbox'));
}

export async function run(ctx: Context, _opts: OptionsOf<typeof declare>, [name]: ArgsOf<typeof declare>): Promise<void> {
  validateProfileName(name, 'profile name');
  const config = await ctx.config();
  if (!config.getProfile(name)) throw noSuchProfile(name, `see svc profiles ls, or create it with svc login --profile ${name}`);
  await config.setCurrentProfile(name);
  ctx.io.info(`Default profile is now ${name}.`);
}
