/** A coin price as a person reads it: the amount and the store's currency symbol (or name). */
export function formatPrice(coinPrice: string, currency: { name?: string; symbol?: string } | undefined): string {
  return `${coinPrice} ${currency?.symbol || currency?.name || ''}`.trim();
}
