/** Orders for refund tests: placed by a sandbox key (only the placing key sees them), cancelled by the team. */
import { expect } from 'vitest';
import type { KeyName, TestSandbox } from '../sandbox/helpers.js';

export interface PlacedOrder {
  id: string;
  coinPrice: string;
  currency: { name: string; symbol: string };
  [field: string]: unknown;
}

/** Places `count` orders of the first LIVE store's first gift without options (delivery to DE). */
export async function placeOrders(sandbox: Pick<TestSandbox, 'api'>, count: number, as: KeyName = 'full'): Promise<PlacedOrder[]> {
  const stores = await sandbox.api('GET', '/reward-stores?limit=100', { as });
  const store = stores.body.items.find((s: { phase: string }) => s.phase === 'LIVE');
  const brandId = store.brandIds[0];
  const read = await sandbox.api('GET', `/reward-stores/${store.id}?brandId=${brandId}&country=DE`, { as });
  const gift = read.body.sections.flatMap((s: { items: unknown[] }) => s.items).find((g: { dimensions: unknown[] }) => g.dimensions.length === 0);
  const orders: PlacedOrder[] = [];
  for (let i = 0; i < count; i++) {
    const placed = await sandbox.api('POST', '/reward-store-orders', {
      as,
      idempotencyKey: crypto.randomUUID(),
      body: {
        storeId: store.id,
        brandId,
        productId: gift.productId,
        variations: {},
        coinPrice: gift.coinPrice,
        recipient: { name: 'Test Player', phone: '+4915112345678', address: { street: 'Teststr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' } },
      },
    });
    expect(placed.status).toBe(201);
    orders.push(placed.body);
  }
  return orders;
}

/** The team cancels an order: one order.cancelled in the placing key's feed. */
export async function cancelOrder(sandbox: Pick<TestSandbox, 'admin'>, orderId: string): Promise<void> {
  expect((await sandbox.admin('POST', `/orders/${orderId}/cancel`, {})).status).toBe(200);
}
