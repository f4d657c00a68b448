import { ORDER_STATUSES } from '../../api/types.js';
import type { Context } from '../../core/context.js';
import { listRewardStoreOrders } from '../../api/resources.js';
import * as validate from '../../api/checks.js';
import { runList, type ListFlags } from '../list.js';
import { formatPrice } from './show.js';

interface Options extends ListFlags {
  brand?: string;
  store?: string;
  status?: string;
}

export async function run(ctx: Context, opts: Options): Promise<void> {
  await runList(ctx, opts, {
    list: listRewardStoreOrders,
    query: {
      brandId: validate.optionalUuid(opts.brand, '--brand'),
      storeId: validate.optionalUuid(opts.store, '--store'),
      status: validate.oneOf(opts.status, ORDER_STATUSES, '--status'),
    },
    noun: 'orders',
    command: 'svc orders ls',
    filters: { '--brand': opts.brand, '--store': opts.store, '--status': opts.status },
    columns: [
      { header: 'ID', value: (o) => o.id, id: true },
      { header: 'Reference', value: (o) => o.reference, id: true, priority: 4 },
      { header: 'Status', value: (o) => o.status, id: true },
      { header: 'Gift', value: (o) => o.productName },
      { header: 'Price', value: (o) => formatPrice(o.coinPrice, o.currency), priority: 3 },
      { header: 'Country', value: (o) => o.deliveryCountry, id: true, priority: 1 },
      { header: 'Created', value: (o) => o.createdAt, id: true, priority: 2 },
    ],
  });
}
