import type { RewardStoreOrder } from '../../api/types.js';
import type { Context } from '../../core/context.js';
import { namesFor } from '../../features/names.js';
import * as validate from '../../core/validate.js';
import { renderOrder } from './show.js';

export async function run(ctx: Context, _opts: unknown, [id]: string[]): Promise<void> {
  const orderId = validate.uuid(id, 'ID');
  const client = await ctx.client();
  const order = await client.get<RewardStoreOrder>(`/reward-store-orders/${orderId}`, { signal: ctx.signal });
  const output = await ctx.output();
  await output.object(order, async (value) => renderOrder(output, value, await namesFor(client, ctx.signal)));
}
