import { randomBytes } from 'node:crypto';
import { API_KEY } from '../api/types.js';
import { MICROS_PER_DAY, type VirtualClock } from './clock.js';
import type { ApiKeyRecord, Brand, Campaign, CustomField, Gift, GiftDimension, RewardStore, Scope } from './models.js';
import { SeededRandom } from './random.js';
import { SandboxState } from './store.js';

export interface FixtureOptions {
  seed: number;
  /** keys and secrets from crypto.randomBytes (the seeded generator still advances, so ids stay the same) */
  randomKeys?: boolean;
  approvalRequired: boolean;
  rateLimitPerMinute: number;
}

const STORE_COUNTRIES = ['US', 'GB', 'DE', 'FR', 'IE', 'HK'];

/**
 * Builds the seed data: every id, key and secret comes from a generator seeded with `--seed`, so the
 * same seed gives the same sandbox (times follow the clock, which starts at real time). With
 * `randomKeys` (svc sandbox without --seed) keys and webhook secrets are random instead.
 */
export function createSeededState(clock: VirtualClock, options: FixtureOptions): SandboxState {
  const random = new SeededRandom(options.seed);
  const now = clock.now();
  const days = (n: number): number => now + n * MICROS_PER_DAY;

  const brands: Brand[] = ['Lucky Star Casino', 'Golden Reels', 'Northern Lights Bingo'].map((name) => ({ id: random.uuid(), name }));
  const [lucky, golden, northern] = brands;
  const allBrandIds = brands.map((b) => b.id);

  const key = (name: string, scopes: Scope[], brandIds: string[]): ApiKeyRecord => {
    const seeded = { apiKey: `${API_KEY.prefix}${random.alphanumeric(32)}`, webhookSecret: random.hex(64) };
    // Without --seed nobody can predict a sandbox's keys (another user on the machine, a web page).
    const secrets = options.randomKeys ? { apiKey: `${API_KEY.prefix}${randomAlphanumeric(32)}`, webhookSecret: randomBytes(32).toString('hex') } : seeded;
    return { name, ...secrets, scopes, brandIds, webhookUrl: null, revoked: false };
  };
  const keys = [
    key('full', ['PERSONAL_LINKS', 'REWARD_STORES'], allBrandIds),
    key('other', ['PERSONAL_LINKS', 'REWARD_STORES'], allBrandIds),
    key('links', ['PERSONAL_LINKS'], [lucky.id]),
    key('stores', ['REWARD_STORES'], allBrandIds),
  ];

  const customFields: CustomField[] = [
    { id: random.uuid(), label: 'Player ID', type: 'TEXT', required: false, options: [] },
    { id: random.uuid(), label: 'VIP tier', type: 'DROPDOWN', required: false, options: ['Bronze', 'Silver', 'Gold'] },
    { id: random.uuid(), label: 'Marketing consent', type: 'CHECKBOX', required: false, options: [] },
  ];

  const campaigns: Campaign[] = [
    { id: random.uuid(), name: 'Birthday Gifts 2026', status: 'ACTIVE', brandIds: [lucky.id, golden.id], expiresAt: null },
    { id: random.uuid(), name: 'VIP Winter Gifts', status: 'ACTIVE', brandIds: [lucky.id], expiresAt: days(30) },
    { id: random.uuid(), name: 'High Roller Rewards', status: 'ACTIVE', brandIds: [northern.id], expiresAt: null },
    { id: random.uuid(), name: 'Summer Promo 2026', status: 'COMPLETED', brandIds: [lucky.id, golden.id], expiresAt: days(-60) },
    { id: random.uuid(), name: 'Spring Launch', status: 'PREPARING', brandIds: [lucky.id], expiresAt: null },
  ];

  const stores = buildStores(random, allBrandIds, lucky.id, days);

  const state = new SandboxState(clock, {
    tenant: {
      id: random.uuid(),
      locales: ['en-US', 'de-DE'],
      approvalRequired: false,
      customFields,
      apiAccess: true,
      rateLimitPerMinute: options.rateLimitPerMinute,
    },
    brands,
    keys,
    campaigns,
    stores,
    ids: new SeededRandom((options.seed ^ 0x1d5eed) >>> 0),
  });

  // Links the operator's team sent, with their own answers, so lists show variety from the start.
  const [playerId, vipTier, consent] = customFields;
  const answers = (id: string | null, tier: string | null, agreed: boolean | null) => [
    { fieldId: playerId.id, textValue: id, checked: null },
    { fieldId: vipTier.id, textValue: tier, checked: null },
    { fieldId: consent.id, textValue: null, checked: agreed },
  ];
  const teamLink = (campaign: Campaign | null, brandId: string, fullName: string, fields: ReturnType<typeof answers>) =>
    state.createLink({ campaign, brandId, fullName, email: null, message: null, locale: 'en-US', customFields: fields, createdBy: null });
  teamLink(campaigns[0], lucky.id, 'Team Player One', answers('P-1001', 'Gold', true));
  teamLink(campaigns[0], golden.id, 'Team Player Two', answers('P-1002', 'Silver', false));
  teamLink(campaigns[1], lucky.id, 'Team Player Three', answers(null, 'Bronze', null));
  teamLink(null, golden.id, 'Team Catalog Player', answers('P-1004', null, true));
  state.tenant.approvalRequired = options.approvalRequired;
  state.startRun();
  return state;
}

/** The gifts of the seed's stores (ids drawn in this order), and the factory for more. */
function seedGifts(random: SeededRandom, firstBrandId: string, days: (n: number) => number) {
  const sizes: GiftDimension = {
    name: 'size',
    label: { 'en-US': 'Size', 'de-DE': 'Größe' },
    values: ['S', 'M', 'L'].map((v) => ({ value: v, label: { 'en-US': v } })),
  };
  const colors: GiftDimension = {
    name: 'color',
    label: { 'en-US': 'Color', 'de-DE': 'Farbe' },
    values: [
      { value: 'black', label: { 'en-US': 'Black', 'de-DE': 'Schwarz' } },
      { value: 'white', label: { 'en-US': 'White', 'de-DE': 'Weiß' } },
    ],
  };
  const gift = (fields: Partial<Gift> & Pick<Gift, 'name' | 'prices'>): Gift => ({
    productId: random.uuid(),
    description: null,
    images: [],
    dimensions: [],
    combinations: [],
    countries: STORE_COUNTRIES,
    brandIds: null,
    published: true,
    availableFrom: null,
    availableUntil: null,
    ...fields,
  });

  const hoodie = gift({
    name: { 'en-US': 'Hoodie', 'de-DE': 'Kapuzenpullover' },
    description: { 'en-US': 'Soft cotton hoodie.\nMachine washable.', 'de-DE': 'Weicher Baumwoll-Kapuzenpullover.\nMaschinenwaschbar.' },
    images: ['hoodie-front', 'hoodie-back'],
    dimensions: [sizes, colors],
    combinations: sizes.values.flatMap((s) =>
      colors.values.map((c) => ({
        variations: { size: s.value, color: c.value },
        // Large in white is sold out.
        stock: s.value === 'L' && c.value === 'white' ? 0 : 1000,
      })),
    ),
    prices: { default: '1200', DE: '1100', FR: '1100' },
  });
  const headphones = gift({
    name: { 'en-US': 'Wireless Headphones', 'de-DE': 'Kabellose Kopfhörer' },
    description: { 'en-US': 'Noise-cancelling over-ear headphones.', 'de-DE': 'Over-Ear-Kopfhörer mit Geräuschunterdrückung.' },
    images: ['headphones'],
    prices: { default: '2500', GB: '2400' },
  });
  const speaker = gift({
    name: { 'en-US': 'Smart Speaker', 'de-DE': 'Intelligenter Lautsprecher' },
    description: { 'en-US': 'Voice-controlled speaker.', 'de-DE': 'Sprachgesteuerter Lautsprecher.' },
    images: ['speaker'],
    dimensions: [
      {
        name: 'color',
        label: { 'en-US': 'Color', 'de-DE': 'Farbe' },
        values: [
          { value: 'charcoal', label: { 'en-US': 'Charcoal', 'de-DE': 'Anthrazit' } },
          { value: 'sand', label: { 'en-US': 'Sand', 'de-DE': 'Sand' } },
        ],
      },
    ],
    combinations: [
      { variations: { color: 'charcoal' }, stock: 500 },
      { variations: { color: 'sand' }, stock: 500 },
    ],
    prices: { default: '1800' },
    // Not sold in Hong Kong.
    countries: STORE_COUNTRIES.filter((c) => c !== 'HK'),
  });
  const giftCard = gift({
    name: { 'en-US': 'Coffee Gift Card', 'de-DE': 'Kaffee-Geschenkkarte' },
    prices: { default: '500' },
    // Offered for the first brand only.
    brandIds: [firstBrandId],
  });
  const poster = gift({
    name: { 'en-US': 'Signed Poster', 'de-DE': 'Signiertes Poster' },
    dimensions: [{ name: 'edition', label: { 'en-US': 'Edition', 'de-DE': 'Auflage' }, values: [{ value: 'first', label: { 'en-US': 'First', 'de-DE': 'Erste' } }] }],
    combinations: [{ variations: { edition: 'first' }, stock: 0 }],
    prices: { default: '900' },
  });
  const watch = gift({ name: { 'en-US': 'Vintage Watch', 'de-DE': 'Vintage-Uhr' }, prices: { default: '9000' }, published: false });
  const hamper = gift({ name: { 'en-US': 'Holiday Hamper', 'de-DE': 'Feiertagskorb' }, prices: { default: '3000' }, availableFrom: days(20) });
  // Orderable now but only for three more days: after advancing the clock, ordering it is NOT_AVAILABLE_NOW.
  const calendar = gift({
    name: { 'en-US': 'Advent Calendar', 'de-DE': 'Adventskalender' },
    prices: { default: '700' },
    availableUntil: days(3),
  });
  return { gift, hoodie, headphones, speaker, giftCard, calendar, poster, watch, hamper };
}

function buildStores(random: SeededRandom, allBrandIds: string[], firstBrandId: string, days: (n: number) => number): RewardStore[] {
  const { gift, hoodie, headphones, speaker, giftCard, calendar, poster, watch, hamper } = seedGifts(random, firstBrandId, days);
  const section = (en: string, de: string, gifts: Gift[]) => ({ id: random.uuid(), name: { 'en-US': en, 'de-DE': de }, gifts });
  const live: RewardStore = {
    id: random.uuid(),
    name: 'Winter Rewards',
    description: 'Spend your coins on winter gifts.\nDelivery in 5 to 7 days.',
    brandIds: allBrandIds,
    startsAt: days(-10),
    endsAt: null,
    banner: 'winter-banner',
    currency: { name: { 'en-US': 'Star Coins', 'de-DE': 'Sternmünzen' }, symbol: { 'en-US': 'SC', 'de-DE': 'SM' } },
    sections: [
      section('Apparel', 'Kleidung', [hoodie]),
      section('Electronics', 'Elektronik', [headphones]),
      section('Smart Home', 'Intelligentes Zuhause', [speaker]),
      section('Gift Cards', 'Geschenkkarten', [giftCard, calendar]),
      // Nothing here is orderable now: the section is left out of store reads.
      section('Limited Editions', 'Limitierte Auflagen', [poster, watch, hamper]),
    ],
  };
  const scheduled: RewardStore = {
    id: random.uuid(),
    name: 'Spring Collection',
    description: null,
    brandIds: allBrandIds.slice(0, 2),
    startsAt: days(7),
    // Ends too, so an ended store (left out of lists, 404 on read, reward_store_not_live) can be reached with the clock.
    endsAt: days(90),
    banner: null,
    currency: { name: { 'en-US': 'Star Coins', 'de-DE': 'Sternmünzen' }, symbol: { 'en-US': 'SC', 'de-DE': 'SM' } },
    sections: [
      section('Garden', 'Garten', [
        gift({ name: { 'en-US': 'Garden Chair', 'de-DE': 'Gartenstuhl' }, prices: { default: '1500' } }),
      ]),
    ],
  };
  return [live, scheduled];
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` characters of [A-Za-z0-9] from the OS's random source, without modulo bias. */
function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}
