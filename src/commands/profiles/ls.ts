import type { Context } from '../../app/context.js';
import { DEFAULT_PROFILE, type Profile } from '../../core/config.js';
import { MASKED_KEY, maskKey } from '../../api/keys.js';
import type { Command } from '@commander-js/extra-typings';
import { examples } from '../declare.js';

interface ProfileRow {
  name: string;
  baseUrl: string;
  apiKey: string;
  webhookSecret: boolean;
  /** where the key is: `keyring` (the OS credential store), `file` (the 0600 config file), or `` when none */
  storage: 'keyring' | 'file' | '';
  default: boolean;
}

export function declare(command: Command) {
  return command
    .description('list profiles: name, base URL, masked key, default marker')
    .addHelpText('after', examples('svc profiles ls', 'svc profiles ls -o json'));
}

export async function run(ctx: Context): Promise<void> {
  const config = await ctx.config();
  const current = config.currentProfile ?? DEFAULT_PROFILE;
  // Keys are masked in every format: a listing is never a way to read a secret back. A key in the
  // keyring is not read just to be masked (that would load the keyring for a listing).
  const rows: ProfileRow[] = Object.entries(config.profiles()).map(([name, profile]) => ({
    name,
    baseUrl: profile.baseUrl,
    apiKey: profile.keyring?.apiKey && !profile.apiKey ? (profile.keyring.maskedKey ?? MASKED_KEY) : maskKey(profile.apiKey),
    webhookSecret: Boolean(profile.webhookSecret || profile.keyring?.webhookSecret),
    storage: storage(profile),
    default: name === current,
  }));
  const output = await ctx.output();
  await output.list([{ items: rows, nextCursor: null }], {
    noun: 'profiles (run svc login)',
    columns: [
      { header: '', value: (row) => (row.default ? '*' : '') },
      { header: 'Name', value: (row) => row.name },
      { header: 'Base URL', value: (row) => row.baseUrl },
      { header: 'API key', value: (row) => row.apiKey },
      { header: 'Stored in', value: (row) => row.storage },
      { header: 'Webhook secret', value: (row) => (row.webhookSecret ? 'set' : '') },
    ],
  });
}

function storage(profile: Profile): ProfileRow['storage'] {
  if (profile.apiKey) return 'file';
  return profile.keyring?.apiKey ? 'keyring' : '';
}
