import type { Context } from '../../core/context.js';
import { DEFAULT_PROFILE } from '../../core/config.js';
import { maskKey } from '../../core/secrets.js';

interface ProfileRow {
  name: string;
  baseUrl: string;
  apiKey: string;
  webhookSecret: boolean;
  default: boolean;
}

export async function run(ctx: Context): Promise<void> {
  const config = await ctx.config();
  const current = config.currentProfile ?? DEFAULT_PROFILE;
  // Keys are masked in every format: a listing is never a way to read a secret back.
  const rows: ProfileRow[] = Object.entries(config.profiles()).map(([name, profile]) => ({
    name,
    baseUrl: profile.baseUrl,
    apiKey: maskKey(profile.apiKey),
    webhookSecret: Boolean(profile.webhookSecret),
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
      { header: 'Webhook secret', value: (row) => (row.webhookSecret ? 'set' : '') },
    ],
  });
}
