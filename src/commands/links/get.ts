import { getPersonalLink } from '../../api/resources.js';
import type { Context } from '../../app/context.js';
import type { ArgsOf, OptionsOf } from '../../app/verb.js';
import * as validate from '../../api/checks.js';
import { showLink } from './show.js';
import type { Command } from '@commander-js/extra-typings';
import { examples, fieldsOption } from '../declare.js';

export function declare(command: Command) {
  return command
    .argument('<id>', 'link id')
    .description('read one link (GET /personal-links/{id})')
    .addOption(fieldsOption('link'))
    .addHelpText('after', examples('svc links get 0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11'));
}

export async function run(ctx: Context, _opts: OptionsOf<typeof declare>, [id]: ArgsOf<typeof declare>): Promise<void> {
  const linkId = validate.uuid(id, 'ID');
  const client = await ctx.client();
  const link = (await getPersonalLink(client, linkId, { signal: ctx.signal })).body;
  const output = await ctx.output();
  await showLink(output, client, ctx.signal, link);
}
