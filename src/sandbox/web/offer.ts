import { LIMITS } from '../../api/generated/constants.js';
import { FieldErrors, checkBody, isPlainObject, usesPostalCodes } from '../validate.js';
import type { Gift, GiftCombination, PersonalLink, Recipient, RewardStore } from '../models.js';
import { type ClaimChoice, type SandboxState, sameVariations } from '../store.js';

/*
 * Which gifts a sandbox link offers (the sandbox's decision; docs/sandbox.md, "The gift site and the workspace"): every gift
 * that GET /reward-stores/{id} shows for the link's brand, the delivery country and the link's
 * locale, in each LIVE store serving that brand — the same sections, gifts and orderable
 * combinations, in the same order. The countries offered are those any such gift is delivered to.
 */

export interface OfferedGift {
  store: RewardStore;
  sectionName: Gift['name'];
  gift: Gift;
  /** Orderable combinations (stock left); empty for a gift without options. */
  combinations: GiftCombination[];
}

function liveStores(state: SandboxState, link: PersonalLink): RewardStore[] {
  return state.stores.filter((store) => state.storePhase(store) === 'LIVE' && store.brandIds.includes(link.brandId));
}

/** The gifts a link offers for delivery to `country`, in store and section order. */
export function offeredGifts(state: SandboxState, link: PersonalLink, country: string): OfferedGift[] {
  return liveStores(state, link).flatMap((store) =>
    store.sections.flatMap((section) =>
      section.gifts
        .filter((gift) => state.giftUnavailableReason(gift, link.brandId, country) === null)
        .map((gift) => ({ store, sectionName: section.name, gift, combinations: gift.combinations.filter((c) => c.stock > 0) })),
    ),
  );
}

/** Countries the link's gifts are delivered to, sorted. */
export function offeredCountries(state: SandboxState, link: PersonalLink): string[] {
  const countries = new Set<string>();
  for (const store of liveStores(state, link)) {
    for (const section of store.sections) for (const gift of section.gifts) for (const c of gift.countries) countries.add(c);
  }
  return [...countries].filter((c) => offeredGifts(state, link, c).length > 0).sort();
}

/** The country a claim page starts with: the link locale's region when gifts go there, else the first. */
export function defaultCountry(state: SandboxState, link: PersonalLink, countries = offeredCountries(state, link)): string | undefined {
  const region = /-([A-Z]{2})$/.exec(link.locale)?.[1];
  return region !== undefined && countries.includes(region) ? region : countries[0];
}

/** How a gift and one of its combinations travel in a form's radio value: `productId` or `productId?size=M&color=black`. */
export function choiceValue(gift: Gift, combination: GiftCombination | undefined): string {
  const options = combination === undefined ? '' : new URLSearchParams(combination.variations).toString();
  return options === '' ? gift.productId : `${gift.productId}?${options}`;
}

export function parseChoiceValue(value: string): { productId: string; variations: Record<string, string> } {
  const [productId, options = ''] = value.split('?', 2);
  return { productId, variations: Object.fromEntries(new URLSearchParams(options)) };
}

/**
 * Reads the body of a claim (admin POST /links/{id}/claim and the gift site's form, which sends the
 * same body): `{productId, variations, recipient}`, checked as POST /reward-store-orders checks them
 * (the API description's limits, postal code where the country uses one), plus: the gift must be one
 * the link offers for the delivery country, the variations one of its orderable combinations. An
 * empty body claims the first gift offered to the default country, for no recipient (scripts).
 */
export function readClaim(state: SandboxState, link: PersonalLink, body: Record<string, unknown>): ClaimChoice {
  const errors = new FieldErrors();
  if (Object.keys(body).length === 0) {
    const country = defaultCountry(state, link);
    const first = country === undefined ? undefined : offeredGifts(state, link, country)[0];
    if (country === undefined || first === undefined) {
      errors.add('productId', 'invalid', 'No gift is offered for this link now.');
      errors.throwIfAny();
    }
    const { store, gift, combinations } = first as OfferedGift;
    return { store, gift, variations: combinations[0]?.variations ?? {}, country: country as ClaimChoice['country'], recipient: null };
  }
  // The order schema checks the recipient; the other required members are the claim's own.
  const checked = checkBody(
    'placeRewardStoreOrder',
    { storeId: link.id, brandId: link.brandId, coinPrice: '0', productId: body.productId, variations: body.variations ?? {}, recipient: body.recipient },
    errors,
  );
  const recipient = checked.recipient;
  const address = isPlainObject(recipient) && isPlainObject(recipient.address) ? recipient.address : undefined;
  const country = errors.has('recipient.address.country') || address === undefined ? undefined : (address.country as string);
  const postalCode = typeof address?.postalCode === 'string' ? address.postalCode.trim() : '';
  if (country !== undefined && usesPostalCodes(country) && postalCode === '' && !errors.has('recipient.address.postalCode')) {
    errors.add('recipient.address.postalCode', 'required', `A postal code is required for deliveries to ${country} (up to ${LIMITS.postalCode} characters).`);
  }
  let offered: OfferedGift | undefined;
  if (!errors.has('productId') && country !== undefined) {
    offered = offeredGifts(state, link, country).find((o) => o.gift.productId === String(body.productId).toLowerCase());
    if (offered === undefined) errors.add('productId', 'invalid', `Choose one of the gifts delivered to ${country}.`);
  }
  const variations = isPlainObject(checked.variations) ? (checked.variations as Record<string, string>) : {};
  if (offered !== undefined && !errors.has('variations')) {
    const orderable = offered.gift.dimensions.length === 0 ? Object.keys(variations).length === 0 : offered.combinations.some((c) => sameVariations(c.variations, variations));
    if (!orderable) errors.add('variations', 'invalid', 'Choose one of the gift\'s options that can be ordered now.');
  }
  errors.throwIfAny();
  const r = recipient as Record<string, unknown>;
  const a = address as Record<string, unknown>;
  const claimRecipient: Recipient = {
    name: r.name as string,
    email: typeof r.email === 'string' ? r.email : null,
    phone: r.phone as string,
    address: { street: a.street as string, city: a.city as string, postalCode: postalCode === '' ? null : postalCode, country: country as ClaimChoice['country'] },
  };
  const { store, gift } = offered as OfferedGift;
  return { store, gift, variations: gift.dimensions.length === 0 ? {} : variations, country: country as ClaimChoice['country'], recipient: claimRecipient };
}
