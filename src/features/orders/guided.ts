/**
 * The guided `orders place` on a TTY: LIVE store → brand → delivery country → language → gift
 * (grouped by section, with its coin price) → one value per option, offering only values that still
 * lead to an orderable combination → recipient → custom fields. Each step is skipped when its flag
 * was given. The postal code is asked as optional: which countries need one is the service's rule,
 * and it says so (400 naming recipient.address.postalCode) when one is missing.
 */
import type { ApiClient } from '../../api/client.js';
import { pagesOf } from '../../api/paginate.js';
import { getRewardStore, listRewardStores } from '../../api/resources.js';
import { API_LIMITS, type Brand, type CountryCode, type Me, type RewardStore, type RewardStoreSummary, type StoreGift, type StoreGiftDimension } from '../../api/types.js';
import { FailureError } from '../../core/errors.js';
import type { Prompter } from '../../core/prompter.js';
import * as validate from '../../api/checks.js';
import { brandNames, chooseLocale } from '../choose.js';
import { promptAnswers, promptRule } from '../fields.js';
import { formatPrice } from '../price.js';
import { askRecipient } from './recipient.js';
import type { Draft } from './request.js';
import { describeVariations } from './refusal.js';

/** What the walk read, for the summary: the store as read and the gift chosen. */
export interface Shown {
  store: RewardStore;
  /** undefined when the store read for the order's country does not offer the gift */
  gift?: StoreGift;
}

/** The store and gift as the order names them, for a person's confirmation; undefined when they cannot be read. */
export async function readShown(client: ApiClient, draft: Draft, signal: AbortSignal): Promise<Shown | undefined> {
  try {
    const query = { brandId: draft.brandId, country: draft.recipient.address.country as CountryCode, locale: draft.locale };
    if (draft.storeId === undefined || draft.brandId === undefined) return undefined;
    const store: RewardStore = (await getRewardStore(client, draft.storeId, { ...query, brandId: draft.brandId }, { signal, retry: false })).body;
    return { store, gift: giftsOf(store).find((item) => item.productId === draft.productId) };
  } catch {
    return undefined;
  }
}

/** `tell` shows a line to the person (stderr): choices made for them, such as the only orderable colour. */
export async function walk(prompter: Prompter, client: ApiClient, me: Me, draft: Draft, signal: AbortSignal, tell: (line: string) => void): Promise<Shown> {
  const summary = await chooseStore(prompter, client, draft.storeId, signal);
  draft.storeId = summary.id;
  draft.brandId ??= await chooseBrand(prompter, summary, me.brands);
  const address = draft.recipient.address;
  address.country ??= await askCountry(prompter);
  draft.locale ??= await chooseLocale(prompter, 'Language (gift names, e-mails)', me.tenant.locales ?? []);
  const brandId = draft.brandId;
  const read = async () => (await getRewardStore(client, summary.id, { brandId, country: address.country as CountryCode, locale: draft.locale }, { signal })).body;
  let store = await read();
  if (store.phase !== 'LIVE') throw new FailureError(`store "${store.name}" is not taking orders yet (opens ${store.startsAt ?? 'later'})`, 'reward_store_not_live');
  // A country where the chosen gift (or every gift) is not sold is asked again, with the reason
  // (one given with --country too: on a terminal a refused answer never ends the flow).
  while ((draft.productId === undefined ? giftsOf(store).length === 0 : !giftsOf(store).some((gift) => gift.productId === draft.productId))) {
    tell(`${draft.productId === undefined ? 'No gift of this store is' : 'This gift is not'} sold in ${address.country}: choose another delivery country.`);
    address.country = await askCountry(prompter);
    store = await read();
  }
  const gift = await chooseGift(prompter, store, draft.productId);
  draft.productId = gift.productId;
  draft.variations = await chooseVariations(prompter, gift, draft.variations ?? {}, tell);
  draft.coinPrice ??= gift.coinPrice;
  await askRecipient(prompter, draft);
  draft.customFields = await promptAnswers(prompter, me.tenant.customFields ?? [], draft.customFields ?? []);
  return { store, gift };
}

/** The store given by --store (looked up for its brands), else one picked from the LIVE stores. */
async function chooseStore(prompter: Prompter, client: ApiClient, storeId: string | undefined, signal: AbortSignal): Promise<RewardStoreSummary> {
  const live: RewardStoreSummary[] = [];
  for await (const page of pagesOf(client, listRewardStores, { all: true, limit: API_LIMITS.pageSizeMax, signal })) {
    for (const store of page.items) {
      if (store.id === storeId) return store;
      if (store.phase === 'LIVE') live.push(store);
    }
  }
  if (storeId !== undefined) throw new FailureError(`store ${storeId} is not one this key can use`, 'reward_store_not_found', 'list them: svc stores ls');
  if (live.length === 0) throw new FailureError('no LIVE store is usable by this key', 'no_live_store', 'scheduled stores take orders once they open: svc stores ls');
  return prompter.select(
    'Store',
    live.map((store) => ({ name: store.name, value: store, description: `${store.id}${store.endsAt ? ` · ends ${store.endsAt}` : ''}` })),
  );
}

async function chooseBrand(prompter: Prompter, store: RewardStoreSummary, brands: readonly Brand[]): Promise<string> {
  if (store.brandIds.length === 1) return store.brandIds[0];
  const name = brandNames(brands);
  return prompter.select('Brand', store.brandIds.map((id) => ({ name: name(id), value: id, description: id })));
}

export async function askCountry(prompter: Prompter): Promise<string> {
  const value = await prompter.input('Delivery country (two letters, e.g. DE)', {
    required: true,
    validate: (text) => promptRule(() => validate.country(text, 'country')),
  });
  return value.toUpperCase();
}

/** The gift given by --product, else one picked from the store, section by section. */
async function chooseGift(prompter: Prompter, store: RewardStore, productId: string | undefined): Promise<StoreGift> {
  const offered = store.sections.flatMap((section) => section.items.map((gift) => ({ section: section.name, gift })));
  if (productId !== undefined) {
    const found = offered.find(({ gift }) => gift.productId === productId);
    if (!found) throw new FailureError(`gift ${productId} cannot be ordered in "${store.name}" for ${store.country}`, 'gift_not_available');
    return found.gift;
  }
  if (offered.length === 0) throw new FailureError(`"${store.name}" has no gift that can be ordered for ${store.country} now`, 'gift_not_available');
  return prompter.select(
    'Gift',
    offered.map(({ section, gift }) => ({
      name: `${section} › ${gift.name} — ${formatPrice(gift.coinPrice, store.currency)}`,
      value: gift,
      description: gift.description ?? undefined,
    })),
  );
}

/**
 * One value per dimension, in order; each choice offers only values that, with the choices before,
 * still match an orderable combination. A dimension with a single such value is chosen, and the
 * person is told so.
 */
export async function chooseVariations(
  prompter: Prompter,
  gift: StoreGift,
  given: Record<string, string>,
  tell: (line: string) => void,
): Promise<Record<string, string>> {
  // Options given (by --variation) that no orderable combination has are not the end of the walk:
  // the person is told which can be ordered and chooses again.
  const fits = gift.combinations.some((combination) => Object.entries(given).every(([name, value]) => combination.variations[name] === value));
  const usable = fits || gift.combinations.length === 0;
  if (!usable) tell(`${describeVariations(given)} cannot be ordered; orderable now: ${describeOrderable(gift)}`);
  // No prototype: a dimension the API names `__proto__` or `constructor` is only a key.
  const chosen: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, usable ? given : {});
  for (const dimension of gift.dimensions) {
    if (Object.hasOwn(chosen, dimension.name)) continue;
    const values = orderableValues(gift, dimension, chosen);
    if (values.length === 0) throw new FailureError(`no orderable ${dimension.label} for the options chosen`, 'out_of_stock');
    if (values.length === 1) {
      chosen[dimension.name] = values[0].value;
      tell(`${dimension.label}: ${values[0].label} (the only one orderable with what you chose)`);
    } else {
      chosen[dimension.name] = await prompter.select(dimension.label, values.map((value) => ({ name: value.label, value: value.value })));
    }
  }
  return chosen;
}

/** The store's gifts, every section's. */
function giftsOf(store: RewardStore): StoreGift[] {
  return (store.sections ?? []).flatMap((section) => section.items ?? []);
}

/** The gift's orderable combinations, as `--variation` takes them: `size=M color=Black; size=L color=Black`. */
export function describeOrderable(gift: StoreGift): string {
  const combinations = gift.combinations ?? [];
  if (combinations.length === 0) return 'none';
  return combinations.map((combination) => Object.entries(combination.variations).map(([name, value]) => `${name}=${value}`).join(' ')).join('; ');
}

/** The dimension's values that, with the choices so far, match one of the gift's orderable combinations. */
function orderableValues(gift: StoreGift, dimension: StoreGiftDimension, chosen: Record<string, string>): StoreGiftDimension['values'] {
  const fits = (variations: Record<string, string>) => Object.entries(chosen).every(([name, value]) => variations[name] === value);
  return dimension.values.filter((value) =>
    gift.combinations.some((combination) => combination.variations[dimension.name] === value.value && fits(combination.variations)),
  );
}
