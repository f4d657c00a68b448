import type { Context } from '../../core/context.js';
import { getRewardStoreOrder } from '../../api/resources.js';
import { fieldLabels } from '../answers.js';
import * as validate from '../../api/checks.js';
import { renderOrder } from './show.js';

export async function run(ctx: Context, _opts: unknown, [id]: string[]): Promise<void> {
  const orderId = validate.uuid(id, 'ID');
  const client = await ctx.client();
  const order = (await getRewardStoreOrder(client, orderId, { signal: ctx.signal })).body;
  const output = await ctx.output();
  await output.object(order, async (value) => renderOrder(output, value, await fieldLabels(client, ctx.signal)));
}
