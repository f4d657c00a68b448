import type { PersonalLink } from '../../api/types.js';
import type { Context } from '../../core/context.js';
import { namesFor } from '../../features/names.js';
import * as validate from '../../core/validate.js';
import { renderLink } from './show.js';

export async function run(ctx: Context, _opts: unknown, [id]: string[]): Promise<void> {
  const linkId = validate.uuid(id, 'ID');
  const client = await ctx.client();
  const link = await client.get<PersonalLink>(`/personal-links/${linkId}`, { signal: ctx.signal });
  const output = await ctx.output();
  await output.object(link, async (value) => renderLink(output, value, await namesFor(client, ctx.signal, { campaigns: value.campaignId !== null })));
}
