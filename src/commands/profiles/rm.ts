import type { Context } from '../../app/context.js';
import type { ArgsOf, OptionsOf } from '../../app/verb.js';
import { noSuchProfile, validateProfileName } from '../../core/config.js';
import type { Command } from '@commander-js/extra-typings';
import { examples } from '../declare.js';

export function declare(command: Command) {
  return command
    .argument('<name>', 'profile name')
    .description('remove a profile and its saved cursor')
    .addHelpText('after', examples('svc profiles rm staging'));
}

export async function run(ctx: Context, _opts: OptionsOf<typeof declare>, [name]: ArgsOf<typeof declare>): Promise<void> {
  const config = await ctx.config();
  // A profile with values of the wrong type can be removed: what is well-formed of it says which keyring entries go.
  const profile = config.salvageProfile(name);
  // A profile saved before names were checked can still be removed; any other bad name is a usage error.
  if (!profile) {
    validateProfileName(name, 'profile name');
    throw noSuchProfile(name);
  }
  // The keyring entries go too; a keyring that cannot be reached now is named, the profile still removed.
  let left = false;
  if (profile.keyring) {
    const store = ctx.secretStore();
    for (const which of ['apiKey', 'webhookSecret'] as const) {
      if (profile.keyring[which] && !(await store.delete(`${profile.keyring.account}/${which}`))) left = true;
    }
  }
  await config.deleteProfile(name);
  ctx.io.info(`Removed profile ${name}.`);
  if (left) ctx.io.info(`note: the OS keyring could not be reached; its entry "svc ${profile.keyring!.account}/…" is still there (remove it with the keyring's own tool).`);
}
