import { ORDER_STATUSES, type RewardStoreOrder } from '../../api/types.js';
import type { Context } from '../../core/context.js';
import * as validate from '../../core/validate.js';
import { runList, type ListFlags } from '../list.js';
import { paintStatus } from '../../features/status.js';
import { formatPrice } from './show.js';

interface Options extends ListFlags {
  brand?: string;
  store?: string;
  status?: string;
}

export async function run(ctx: Context, opts: Options): Promise<void> {
  await runList<RewardStoreOrder>(ctx, opts, {
    path: '/reward-store-orders',
    query: {
      brandId: validate.optionalUuid(opts.brand, '--brand'),
      storeId: validate.optionalUuid(opts.store, '--store'),
      status: validate.oneOf(opts.status, ORDER_STATUSES, '--status'),
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
