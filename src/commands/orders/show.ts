/** How one order reads for a person. Shared by get and place. */
import type { RewardStoreOrder } from '../../api/types.js';
import type { Output } from '../../core/output.js';
import { answerLines, type FieldLabels } from '../answers.js';

export function formatPrice(coinPrice: string, currency: { name?: string; symbol?: string } | undefined): string {
  return `${coinPrice} ${currency?.symbol || currency?.name || ''}`.trim();
}

export function renderOrder(output: Output, order: RewardStoreOrder, labels: FieldLabels = new Map()): string {
  const { chalk } = output;
  const row = (label: string, value: string | null | undefined) => `${chalk.bold(label.padEnd(10))}  ${value ?? chalk.dim('—')}`;
  const answers = answerLines(output, order.customFields, labels);
  const variations = Object.entries(order.variations ?? {}).map(([name, value]) => `${name}=${value}`).join(', ');
  return [
    row('Reference', order.reference),
    row('ID', order.id),
    row('Status', order.status),
    row('Gift', `${order.productName}${variations ? ` (${variations})` : ''}`),
    row('Price', formatPrice(order.coinPrice, order.currency)),
    row('Country', order.deliveryCountry),
    row('Store', order.storeId),
    row('Brand', order.brandId),
    row('Created', order.createdAt),
    row('Updated', order.updatedAt),
    ...(order.shipment
      ? [row('Shipment', [order.shipment.carrier, order.shipment.trackingReference, order.shipment.trackingUrl].filter(Boolean).join(' · '))]
      : []),
    ...(answers.length ? [chalk.bold('Custom fields'), ...answers] : []),
  ].join('\n');
}
