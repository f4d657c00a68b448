import { getRewardStoreOrder } from '../../api/resources.js';
import type { Context } from '../../app/context.js';
import type { ArgsOf, OptionsOf } from '../../app/verb.js';
import { namesFor } from '../../app/names.js';
import * as resolve from '../../features/resolve.js';
import { renderOrder } from './show.js';
import type { Command } from '@commander-js/extra-typings';
import { examples, fieldsOption } from '../declare.js';

export function declare(command: Command) {
  return command
    .argument('<id>', 'order id or reference (SVC-000008)')
    .description('read one order (GET /reward-store-orders/{id})')
    .addOption(fieldsOption('order'))
    .addHelpText('after', examples('svc orders get <id>', 'svc orders get SVC-000008'));
}

export async function run(ctx: Context, _opts: OptionsOf<typeof declare>, [id]: ArgsOf<typeof declare>): Promise<void> {
  const orderId = await resolve.orderId(ctx, id, 'ID');
  const client = await ctx.client();
  const order = (await getRewardStoreOrder(client, orderId, { signal: ctx.signal })).body;
  const output = await ctx.output();
  await output.object(order, async (value) => renderOrder(output, value, await namesFor(client, ctx.signal)));
}
