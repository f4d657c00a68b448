import type { Context } from '../../core/context.js';
import { getPersonalLink } from '../../api/resources.js';
import { fieldLabels } from '../answers.js';
import * as validate from '../../api/checks.js';
import { renderLink } from './show.js';

export async function run(ctx: Context, _opts: unknown, [id]: string[]): Promise<void> {
  const linkId = validate.uuid(id, 'ID');
  const client = await ctx.client();
  const link = (await getPersonalLink(client, linkId, { signal: ctx.signal })).body;
  const output = await ctx.output();
  await output.object(link, async (value) => renderLink(output, value, await fieldLabels(client, ctx.signal)));
}
