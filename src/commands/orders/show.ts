/** How one order reads for a person. Shared by get and place. */
import type { RewardStoreOrder } from '../../api/types.js';
import type { Output } from '../../core/output.js';
import { Names } from '../../app/names.js';
import { paintStatus } from '../../features/status.js';
import { answerLines } from '../../features/answers.js';
import { formatPrice } from '../../features/price.js';

export function renderOrder(output: Output, order: RewardStoreOrder, names: Names = new Names()): string {
  const { chalk } = output;
  const answers = answerLines(output, order.customFields, names);
  const variations = Object.entries(order.variations ?? {}).map(([name, value]) => `${name}=${value}`).join(', ');
  return [
    ...output.details([
      { label: 'Reference', value: order.reference, whole: true },
      { label: 'ID', value: order.id, whole: true },
      { label: 'Status', value: order.status, paint: paintStatus(chalk, order.status) },
      { label: 'Gift', value: `${order.productName}${variations ? ` (${variations})` : ''}` },
      { label: 'Price', value: formatPrice(order.coinPrice, order.currency) },
      { label: 'Country', value: order.deliveryCountry },
      { label: 'Store', value: order.storeId, whole: true },
      names.brandRow('Brand', order.brandId),
      { label: 'Created', value: order.createdAt, whole: true },
      { label: 'Updated', value: order.updatedAt, whole: true },
      ...(order.shipment
        ? [{ label: 'Shipment', value: [order.shipment.carrier, order.shipment.trackingReference, order.shipment.trackingUrl].filter(Boolean).join(' · '), whole: true }]
        : []),
    ]),
    ...(answers.length ? [chalk.bold('Custom fields'), ...answers] : []),
  ].join('\n');
}
