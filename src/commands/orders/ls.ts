import { ORDER_STATUSES } from '../../api/types.js';
import { listRewardStoreOrders } from '../../api/resources.js';
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import * as validate from '../../api/checks.js';
import * as resolve from '../../features/resolve.js';
import { runList } from '../../features/list.js';
import { formatPrice } from '../../features/price.js';
import { paintStatus } from '../../features/status.js';
import type { Command } from '@commander-js/extra-typings';
import { enumOption, examples, listOptions } from '../declare.js';

export function declare(command: Command) {
  return listOptions(
    command
      .description('list orders this key placed, newest first (GET /reward-store-orders)')
      .option('--brand <id|name>', 'only this brand (id or name)')
      .option('--store <id>', 'only this store')
      .addOption(enumOption('--status <status>', 'order status', ORDER_STATUSES)),
    'order',
  ).addHelpText('after', examples('svc orders ls', 'svc orders ls --status CANCELLED --all | jq -r .id', 'svc orders ls --all -o json --jq \'group_by(.status) | map({status: .[0].status, n: length})\''));
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<void> {
  await runList(ctx, opts, {
    list: listRewardStoreOrders,
    query: {
      storeId: validate.optionalUuid(opts.store, '--store'),
      status: validate.oneOf(opts.status, ORDER_STATUSES, '--status'),
      brandId: await resolve.brandId(ctx, opts.brand),
    },
    noun: 'orders',
    command: 'svc orders ls',
    filters: { '--brand': opts.brand, '--store': opts.store, '--status': opts.status },
    columns: (names) => [
      { header: 'ID', value: (o) => o.id, id: true },
      { header: 'Reference', value: (o) => o.reference, id: true, priority: 4 },
      { header: 'Status', value: (o) => o.status, id: true, paint: (o, chalk) => paintStatus(chalk, o.status) },
      { header: 'Gift', value: (o) => o.productName },
      { header: 'Price', value: (o) => formatPrice(o.coinPrice, o.currency), priority: 3 },
      { header: 'Brand', value: (o) => names.brand(o.brandId) ?? o.brandId, priority: 2 },
      { header: 'Country', value: (o) => o.deliveryCountry, id: true, priority: 1 },
      { header: 'Created', value: (o) => o.createdAt, id: true, priority: 1 },
    ],
  });
}
