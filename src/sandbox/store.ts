import { randomBytes, randomUUID } from 'node:crypto';
import type { GiftNotAvailableReason } from '../api/types.js';
import { MICROS_PER_DAY, formatTimestamp, type VirtualClock } from './clock.js';
import { Cursors } from './paging.js';
import type { SeededRandom } from './random.js';
import {
  type ApiKeyRecord,
  type Brand,
  type Campaign,
  type CustomFieldAnswer,
  type EventType,
  type Gift,
  type LinkStatus,
  type Order,
  type PersonalLink,
  type Recipient,
  type RewardStore,
  type Shipment,
  type StoredEvent,
  type Tenant,
  linkJson,
  orderJson,
  storeCurrency,
  translate,
} from './models.js';

const EVENT_RETENTION_MICROS = 30 * MICROS_PER_DAY;

/** The time field a move into each status stamps (every move also stamps updatedAt). */
const LINK_MOVE_STAMPS: Partial<Record<LinkStatus, 'approvedAt' | 'claimedAt' | 'cancelledAt'>> = {
  ACTIVE: 'approvedAt',
  CLAIMED: 'claimedAt',
  CANCELLED: 'cancelledAt',
};

export type StorePhase = 'SCHEDULED' | 'LIVE' | 'ENDED';

/** Why a gift cannot be ordered now (spec: `reason` of gift_not_available). */
export type GiftUnavailableReason = GiftNotAvailableReason;

/** Thrown by state transitions that the current status does not allow (admin answers 409). */
export class TransitionError extends Error {}

export interface SeedData {
  tenant: Tenant;
  brands: Brand[];
  keys: ApiKeyRecord[];
  campaigns: Campaign[];
  stores: RewardStore[];
  /** Ids of the seed's own records and events (the same seed gives the same ones); see startRun. */
  ids: SeededRandom;
}

export interface NewLink {
  campaign: Campaign | null;
  brandId: string;
  fullName: string;
  email: string | null;
  message: string | null;
  locale: string;
  customFields: readonly CustomFieldAnswer[];
  createdBy: string | null;
}

/** What a player's claim orders: one gift of a LIVE store, one orderable combination, where to. */
export interface ClaimChoice {
  store: RewardStore;
  gift: Gift;
  variations: Record<string, string>;
  country: Order['deliveryCountry'];
  recipient: Recipient | null;
}

export type NewOrder = Omit<Order, 'id' | 'reference' | 'status' | 'shipment' | 'createdAt' | 'updatedAt'>;

/**
 * All state of one sandbox and every change to it. Each change stamps its records with one clock
 * tick and records its events here, exactly once, so callers cannot forget or duplicate them.
 */
export class SandboxState {
  readonly tenant: Tenant;
  readonly brands: Brand[];
  readonly keys: ApiKeyRecord[];
  readonly campaigns: Campaign[];
  readonly stores: RewardStore[];
  /** Links in creation order (ascending createdAt): pages are found by binary search. */
  readonly links: PersonalLink[] = [];
  readonly orders: Order[] = [];
  /** Events in the order saved; events[i].seq increases by one per event. */
  private events: StoredEvent[] = [];
  private nextSeq = 1;
  private readonly linksById = new Map<string, PersonalLink>();
  private readonly openLinksByCampaign = new Map<string, Set<PersonalLink>>();
  private readonly ordersById = new Map<string, Order>();
  private readonly ordersByKey = new Map<string, Order[]>();
  private orderCount = 0;
  private ids: SeededRandom | undefined;
  /** The origin of the sandbox's gift site, in every link's claimUrl (see setOrigin). */
  private readonly site = { origin: 'http://127.0.0.1:4010' };
  /**
   * The cursors of this run: they carry a tag drawn at start, so a cursor an earlier run issued (the
   * same seed, the same port, restarted) is refused instead of read against other records.
   */
  readonly cursors = new Cursors(randomBytes(9).toString('base64url'));
  /** Called after each recorded event (the webhook queue listens). */
  onEvent: (event: StoredEvent) => void = () => undefined;

  constructor(
    readonly clock: VirtualClock,
    seed: SeedData,
  ) {
    this.tenant = seed.tenant;
    this.brands = seed.brands;
    this.keys = seed.keys;
    this.campaigns = seed.campaigns;
    this.stores = seed.stores;
    this.ids = seed.ids;
  }

  /**
   * A new record or event id: from the seeded generator while the seed data is built, random once the
   * run has started, so records made while a sandbox runs never repeat an earlier run's ids.
   */
  newId(): string {
    return this.ids === undefined ? randomUUID() : this.ids.uuid();
  }

  /** The seed data is built: every id made from now on is random (see newId). */
  startRun(): void {
    this.ids = undefined;
  }

  /**
   * The sandbox listens at `origin`: claimUrls name it from now on, and the events recorded before
   * (the seed's links) are rewritten to name it too, so every claimUrl opens this sandbox's gift site.
   */
  setOrigin(origin: string): void {
    const before = JSON.stringify(`${this.site.origin}/claim/`).slice(0, -1);
    const after = JSON.stringify(`${origin}/claim/`).slice(0, -1);
    this.site.origin = origin;
    for (const event of this.events) if (event.subject === 'link') event.json = event.json.replace(before, after);
  }

  keyByApiKey(apiKey: string): ApiKeyRecord | undefined {
    return this.keys.find((k) => k.apiKey === apiKey);
  }

  keyByName(name: string): ApiKeyRecord | undefined {
    return this.keys.find((k) => k.name === name);
  }

  brand(id: string): Brand | undefined {
    return this.brands.find((b) => b.id === id);
  }

  campaign(id: string): Campaign | undefined {
    return this.campaigns.find((c) => c.id === id);
  }

  store(id: string): RewardStore | undefined {
    return this.stores.find((s) => s.id === id);
  }

  link(id: string): PersonalLink | undefined {
    return this.linksById.get(id);
  }

  order(id: string): Order | undefined {
    return this.ordersById.get(id);
  }

  /** Orders a key placed, oldest first. */
  ordersOf(keyName: string): readonly Order[] {
    return this.ordersByKey.get(keyName) ?? [];
  }

  storePhase(store: RewardStore, now = this.clock.now()): StorePhase {
    if (store.endsAt !== null && now >= store.endsAt) return 'ENDED';
    if (store.startsAt !== null && now < store.startsAt) return 'SCHEDULED';
    return 'LIVE';
  }

  /** A campaign takes links while ACTIVE and before its expiry (the sweep completes it at expiry). */
  campaignIsActive(campaign: Campaign, now = this.clock.now()): boolean {
    return campaign.status === 'ACTIVE' && (campaign.expiresAt === null || campaign.expiresAt > now);
  }

  /** The reason a gift cannot be ordered now for a brand and country, or null if it can. */
  giftUnavailableReason(gift: Gift, brandId: string, country: string, now = this.clock.now()): GiftUnavailableReason | null {
    if (!gift.published) return 'NOT_PUBLISHED';
    if (gift.brandIds !== null && !gift.brandIds.includes(brandId)) return 'NOT_USABLE_BY_BRAND';
    if (!gift.countries.includes(country)) return 'NOT_SOLD_IN_COUNTRY';
    if (gift.availableFrom !== null && gift.availableFrom > now) return 'NOT_AVAILABLE_NOW';
    if (gift.availableUntil !== null && gift.availableUntil <= now) return 'NOT_AVAILABLE_NOW';
    if (gift.dimensions.length > 0 && !gift.combinations.some((c) => c.stock > 0)) return 'NO_SELECTABLE_COMBINATION';
    return null;
  }

  /** A gift of any store (admin). */
  gift(productId: string): Gift | undefined {
    for (const store of this.stores) {
      const gift = this.findGift(store, productId);
      if (gift !== undefined) return gift;
    }
    return undefined;
  }

  findGift(store: RewardStore, productId: string): Gift | undefined {
    for (const section of store.sections) {
      const gift = section.gifts.find((g) => g.productId === productId);
      if (gift !== undefined) return gift;
    }
    return undefined;
  }

  // ---- events -------------------------------------------------------------------------------

  /** Whether the feed of `key` holds `event` (openapi/openapi.yaml, GET /events). */
  keyMaySee(key: ApiKeyRecord, event: StoredEvent): boolean {
    if (!key.brandIds.includes(event.brandId)) return false;
    if (event.subject === 'link') return key.scopes.includes('PERSONAL_LINKS');
    return key.scopes.includes('REWARD_STORES') && event.orderOwner === key.name;
  }

  private record(
    type: EventType,
    occurredAt: number,
    data: Record<string, unknown>,
    subject: 'link' | 'order',
    brandId: string,
    actorKey: string | null,
    orderOwner: string | null,
  ): void {
    const id = this.newId();
    const json = JSON.stringify({ id, type, occurredAt: formatTimestamp(occurredAt), environment: 'production', data });
    const event: StoredEvent = { seq: this.nextSeq++, id, type, occurredAt, json, brandId, subject, actorKey, orderOwner };
    this.events.push(event);
    this.onEvent(event);
  }

  private recordLink(type: EventType, link: PersonalLink, actorKey: string | null): void {
    this.record(type, link.updatedAt, linkJson(link), 'link', link.brandId, actorKey, null);
  }

  private recordOrder(type: EventType, order: Order): void {
    // Order changes are made by the team or the service, never by a key's own request.
    this.record(type, order.updatedAt, orderJson(order), 'order', order.brandId, null, order.placedBy);
  }

  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Up to `limit` events of the key's feed saved after sequence number `afterSeq`. */
  feed(key: ApiKeyRecord, afterSeq: number | null, limit: number): StoredEvent[] {
    const items: StoredEvent[] = [];
    if (this.events.length === 0) return items;
    const firstSeq = this.events[0].seq;
    let index = afterSeq === null ? 0 : Math.max(0, afterSeq + 1 - firstSeq);
    for (; index < this.events.length && items.length < limit; index++) {
      const event = this.events[index];
      if (this.keyMaySee(key, event)) items.push(event);
    }
    return items;
  }

  // ---- links --------------------------------------------------------------------------------

  createLink(input: NewLink): PersonalLink {
    const link = this.addLink(input, this.tenant.approvalRequired ? 'REQUESTED' : 'ACTIVE');
    this.recordLink('personal_link.created', link, input.createdBy);
    return link;
  }

  /** Stamps a new link with one tick and indexes it; it records no event (see seedLinks). */
  private addLink(input: NewLink, status: 'REQUESTED' | 'ACTIVE'): PersonalLink {
    const now = this.clock.tick();
    const link: PersonalLink = {
      id: this.newId(),
      campaignId: input.campaign?.id ?? null,
      brandId: input.brandId,
      status,
      customFields: input.customFields,
      expiresAt: input.campaign?.expiresAt ?? null,
      createdAt: now,
      approvedAt: null,
      claimedAt: null,
      cancelledAt: null,
      updatedAt: now,
      createdBy: input.createdBy,
      fullName: input.fullName,
      email: input.email,
      message: input.message,
      locale: input.locale,
      cancelReason: null,
      site: this.site,
    };
    this.links.push(link);
    this.linksById.set(link.id, link);
    if (link.campaignId !== null) {
      let open = this.openLinksByCampaign.get(link.campaignId);
      if (open === undefined) this.openLinksByCampaign.set(link.campaignId, (open = new Set()));
      open.add(link);
    }
    return link;
  }

  private closeLink(link: PersonalLink): void {
    if (link.campaignId !== null) this.openLinksByCampaign.get(link.campaignId)?.delete(link);
  }

  /**
   * Moves a link to `to` at one tick (or at `at`, the instant a move became due), stamps the time of
   * that move, and records its event. A link that is no longer open leaves its campaign's open set,
   * so the campaign's end does not expire it.
   */
  private moveLink(link: PersonalLink, to: LinkStatus, type: EventType, actorKey: string | null, at?: number): void {
    const now = at ?? this.clock.tick();
    link.status = to;
    const stampField = LINK_MOVE_STAMPS[to];
    if (stampField !== undefined) link[stampField] = now;
    link.updatedAt = now;
    if (to !== 'ACTIVE') this.closeLink(link);
    this.recordLink(type, link, actorKey);
  }

  approveLink(link: PersonalLink): void {
    if (link.status !== 'REQUESTED') throw new TransitionError(`Link ${link.id} is ${link.status}; only a REQUESTED link can be approved.`);
    this.moveLink(link, 'ACTIVE', 'personal_link.approved', null);
  }

  /** Only an ACTIVE link can be claimed (TransitionError otherwise). */
  assertClaimable(link: PersonalLink): void {
    if (link.status !== 'ACTIVE') throw new TransitionError(`Link ${link.id} is ${link.status}; only an ACTIVE link can be claimed.`);
  }

  /**
   * The player claims an ACTIVE link with the gift they chose (decided and checked before this is
   * called); the order this places takes its stock and belongs to no key.
   */
  claimLink(link: PersonalLink, choice: ClaimChoice): Order {
    this.assertClaimable(link);
    this.moveLink(link, 'CLAIMED', 'personal_link.claimed', null);
    const { store, gift, variations, country, recipient } = choice;
    const combination = gift.combinations.find((c) => sameVariations(c.variations, variations));
    if (combination !== undefined) combination.stock -= 1;
    return this.addOrder({
      storeId: store.id,
      brandId: link.brandId,
      productId: gift.productId,
      productName: translate(gift.name, link.locale),
      variations,
      coinPrice: '0',
      currency: storeCurrency(store, link.locale),
      deliveryCountry: country,
      customFields: link.customFields,
      placedBy: null,
      locale: link.locale,
      recipient,
      additionalDetails: null,
    }, 'PROCESSING');
  }

  /** Cancels a REQUESTED or ACTIVE link; returns false when it was already CANCELLED (no change). */
  cancelLink(link: PersonalLink, reason: string, actorKey: string | null): boolean {
    if (link.status === 'CANCELLED') return false;
    if (link.status !== 'REQUESTED' && link.status !== 'ACTIVE') {
      throw new TransitionError(`Link ${link.id} is ${link.status} and can no longer be cancelled.`);
    }
    link.cancelReason = reason;
    this.moveLink(link, 'CANCELLED', 'personal_link.cancelled', actorKey);
    return true;
  }

  /**
   * Reopens a COMPLETED campaign (admin). Links that expired with it stay EXPIRED. A past expiry is
   * cleared, else the campaign would complete again at once.
   */
  reopenCampaign(campaign: Campaign): void {
    if (campaign.status !== 'COMPLETED') throw new TransitionError(`Campaign ${campaign.id} is ${campaign.status}; only a COMPLETED campaign can be reopened.`);
    campaign.status = 'ACTIVE';
    if (campaign.expiresAt !== null && campaign.expiresAt <= this.clock.now()) campaign.expiresAt = null;
  }

  /**
   * Ends a campaign; its open links expire, each with one personal_link.expired event. `at` is the
   * instant it ended when that lies in the past (its expiresAt, reached while the clock jumped): the
   * links' updatedAt and the events' occurredAt are that instant, not the time the sweep ran.
   */
  completeCampaign(campaign: Campaign, at?: number): void {
    if (campaign.status !== 'ACTIVE') throw new TransitionError(`Campaign ${campaign.id} is ${campaign.status}; only an ACTIVE campaign can be completed.`);
    campaign.status = 'COMPLETED';
    const open = this.openLinksByCampaign.get(campaign.id);
    if (open === undefined) return;
    this.openLinksByCampaign.delete(campaign.id);
    // Oldest first, so the expiry events come in the order the links were made.
    const expiring = [...open].sort((a, b) => a.createdAt - b.createdAt);
    for (const link of expiring) {
      // Never before the link's own last change (a record's updatedAt does not go back).
      const when = at === undefined ? undefined : Math.max(at, link.updatedAt);
      this.moveLink(link, 'EXPIRED', 'personal_link.expired', null, when);
    }
  }

  /**
   * Bulk-loads ACTIVE links created by `createdBy` across `brandIds` (benches and tests). They are
   * loaded as history: no events are recorded for them, so the feed stays small.
   */
  seedLinks(count: number, options: { campaign: Campaign; brandIds: string[]; createdBy: string | null }): void {
    const empty: readonly CustomFieldAnswer[] = Object.freeze(
      this.tenant.customFields.map((f) => Object.freeze({ fieldId: f.id, textValue: null, checked: null })),
    );
    for (let i = 0; i < count; i++) {
      const brandId = options.brandIds[i % options.brandIds.length];
      const fullName = `Player ${i + 1}`;
      this.addLink({ campaign: options.campaign, brandId, fullName, email: null, message: null, locale: 'en-US', customFields: empty, createdBy: options.createdBy }, 'ACTIVE');
    }
  }

  // ---- orders -------------------------------------------------------------------------------

  /** Records a placed order and takes its stock (refusals are decided before this is called). */
  placeOrder(input: NewOrder, gift: Gift): Order {
    const combination = gift.combinations.find((c) => sameVariations(c.variations, input.variations));
    if (combination !== undefined) combination.stock -= 1;
    return this.addOrder(input, this.tenant.approvalRequired ? 'REQUESTED' : 'PROCESSING');
  }

  private addOrder(input: NewOrder, status: 'REQUESTED' | 'PROCESSING'): Order {
    const now = this.clock.tick();
    this.orderCount += 1;
    const order: Order = {
      ...input,
      id: this.newId(),
      reference: `SVC-${String(this.orderCount).padStart(6, '0')}`,
      status,
      shipment: null,
      createdAt: now,
      updatedAt: now,
    };
    this.orders.push(order);
    this.ordersById.set(order.id, order);
    if (order.placedBy !== null) {
      let own = this.ordersByKey.get(order.placedBy);
      if (own === undefined) this.ordersByKey.set(order.placedBy, (own = []));
      own.push(order);
    }
    return order;
  }

  private moveOrder(order: Order, from: readonly Order['status'][], to: Order['status'], type: EventType, change?: (order: Order) => void): void {
    if (!from.includes(order.status)) {
      throw new TransitionError(`Order ${order.id} is ${order.status}; this move needs ${from.join(' or ')}.`);
    }
    order.status = to;
    order.updatedAt = this.clock.tick();
    change?.(order);
    this.recordOrder(type, order);
  }

  approveOrder(order: Order): void {
    this.moveOrder(order, ['REQUESTED'], 'PROCESSING', 'order.approved');
  }

  rejectOrder(order: Order): void {
    this.moveOrder(order, ['REQUESTED'], 'CANCELLED', 'order.cancelled');
  }

  shipOrder(order: Order, shipment: Shipment): void {
    this.moveOrder(order, ['PROCESSING'], 'SENT', 'order.sent', (o) => {
      o.shipment = shipment;
    });
  }

  deliverOrder(order: Order): void {
    this.moveOrder(order, ['SENT'], 'COMPLETED', 'order.completed');
  }

  /** The team or the service cancels an order from any state but CANCELLED (one order.cancelled per order). */
  cancelOrder(order: Order): void {
    this.moveOrder(order, ['REQUESTED', 'PROCESSING', 'SENT', 'COMPLETED'], 'CANCELLED', 'order.cancelled');
  }

  // ---- time ---------------------------------------------------------------------------------

  /**
   * Applies what is due on the virtual clock: campaign expiries (stamped at the expiry instant, however
   * long ago the clock passed it; earliest first) and event retention.
   */
  sweep(): void {
    const now = this.clock.now();
    let due: Campaign[] | undefined;
    for (const campaign of this.campaigns) {
      if (campaign.status === 'ACTIVE' && campaign.expiresAt !== null && campaign.expiresAt <= now) (due ??= []).push(campaign);
    }
    if (due !== undefined) {
      due.sort((a, b) => (a.expiresAt as number) - (b.expiresAt as number));
      for (const campaign of due) this.completeCampaign(campaign, campaign.expiresAt as number);
    }
    let expired = 0;
    while (expired < this.events.length && this.events[expired].occurredAt < now - EVENT_RETENTION_MICROS) expired++;
    if (expired > 0) this.events = this.events.slice(expired);
  }
}

export function sameVariations(a: Record<string, string>, b: Record<string, string>): boolean {
  const keysA = Object.keys(a);
  return keysA.length === Object.keys(b).length && keysA.every((k) => Object.hasOwn(b, k) && b[k] === a[k]);
}
