import type { Brand, CustomFieldAnswer, EventType as ApiEventType, FieldType, LinkStatus, OrderStatus, RewardStoreOrder, Scope } from '../api/types.js';
import { formatNullableTimestamp, formatTimestamp } from './clock.js';

// The API's own shapes and enums are defined once, in src/api/types.ts; the sandbox adds what it keeps privately.
export type { Brand, CustomFieldAnswer, LinkStatus, OrderStatus, Scope };
export { LINK_STATUSES, ORDER_STATUSES, SCOPES } from '../api/types.js';

/** Text in several languages; `en-US` is always present and is the fallback. */
export type LocalizedText = Readonly<{ 'en-US': string } & Record<string, string>>;

export function translate(text: LocalizedText, locale: string): string {
  return text[locale] ?? text['en-US'];
}

export interface ApiKeyRecord {
  name: string;
  apiKey: string;
  scopes: Scope[];
  brandIds: string[];
  webhookUrl: string | null;
  webhookSecret: string;
  revoked: boolean;
}

/** The brands of a record that the key may act for (records sharing none are invisible to it). */
export function usableBrandIds(key: ApiKeyRecord, brandIds: readonly string[]): string[] {
  return brandIds.filter((b) => key.brandIds.includes(b));
}

/** Whether a list shows the key a record of these brands, under an optional brandId filter. */
export function listedForKey(key: ApiKeyRecord, brandIds: readonly string[], brandIdFilter: string | undefined): boolean {
  const usable = usableBrandIds(key, brandIds);
  return brandIdFilter === undefined ? usable.length > 0 : usable.includes(brandIdFilter);
}

export type CustomFieldType = FieldType;

export interface CustomField {
  id: string;
  label: string;
  type: CustomFieldType;
  required: boolean;
  options: string[];
}

export interface Tenant {
  id: string;
  locales: string[];
  approvalRequired: boolean;
  customFields: CustomField[];
  apiAccess: boolean;
  rateLimitPerMinute: number;
}

/** PREPARING is the campaign "still being prepared": never listed, refused as not active. */
export type CampaignStatus = 'ACTIVE' | 'COMPLETED' | 'PREPARING';

export interface Campaign {
  id: string;
  name: string;
  status: CampaignStatus;
  brandIds: string[];
  expiresAt: number | null;
}

/**
 * A personal link. The fields after `updatedAt` are private to the sandbox and never serialised:
 * the API must not reveal a player's name, e-mail or message.
 */
export interface PersonalLink {
  id: string;
  campaignId: string | null;
  brandId: string;
  status: LinkStatus;
  customFields: readonly CustomFieldAnswer[];
  expiresAt: number | null;
  createdAt: number;
  approvedAt: number | null;
  claimedAt: number | null;
  cancelledAt: number | null;
  updatedAt: number;
  /** Name of the API key that created it; null when the team created it. */
  createdBy: string | null;
  fullName: string;
  email: string | null;
  message: string | null;
  locale: string;
  cancelReason: string | null;
  /** Where the sandbox serves its gift site (shared by all its links; known once it listens). */
  site: Readonly<{ origin: string }>;
}

export type Currency = RewardStoreOrder['currency'];
export type Shipment = NonNullable<RewardStoreOrder['shipment']>;

export interface Recipient {
  name: string;
  email: string | null;
  phone: string;
  address: { street: string; city: string; postalCode: string | null; country: string };
}

/**
 * A store order: the API's fields (times kept as numbers on the virtual clock until written out),
 * then private ones (address, contact, who placed it) that are never serialised.
 */
export interface Order extends Omit<RewardStoreOrder, 'customFields' | 'createdAt' | 'updatedAt'> {
  customFields: readonly CustomFieldAnswer[];
  createdAt: number;
  updatedAt: number;
  /** Name of the placing key; null for the order a player's claim places (it belongs to no key). */
  placedBy: string | null;
  locale: string;
  recipient: Recipient | null;
  additionalDetails: string | null;
}

export interface GiftDimension {
  name: string;
  label: LocalizedText;
  values: { value: string; label: LocalizedText }[];
}

export interface GiftCombination {
  variations: Record<string, string>;
  /** Units left; 0 means sold out. */
  stock: number;
}

export interface Gift {
  productId: string;
  name: LocalizedText;
  description: LocalizedText | null;
  /** Image names served under /images; the first is the thumbnail. */
  images: string[];
  dimensions: GiftDimension[];
  combinations: GiftCombination[];
  /** Price per delivery country, falling back to `default`. */
  prices: { default: string } & Record<string, string>;
  countries: string[];
  /** Brands of the store that may offer it; null means all of them. */
  brandIds: string[] | null;
  published: boolean;
  availableFrom: number | null;
  /** After this time the gift is no longer available (NOT_AVAILABLE_NOW); null if no end. */
  availableUntil: number | null;
}

export function giftPrice(gift: Gift, country: string): string {
  return gift.prices[country] ?? gift.prices.default;
}

export interface StoreSection {
  id: string;
  name: LocalizedText;
  gifts: Gift[];
}

export interface RewardStore {
  id: string;
  name: string;
  description: string | null;
  brandIds: string[];
  startsAt: number | null;
  endsAt: number | null;
  banner: string | null;
  currency: { name: LocalizedText; symbol: LocalizedText };
  sections: StoreSection[];
}

export function storeCurrency(store: RewardStore, locale: string): Currency {
  return { name: translate(store.currency.name, locale), symbol: translate(store.currency.symbol, locale) };
}

/** The event types the store records (`ping` is only sent by a webhook test, never recorded). */
export type EventType = Exclude<ApiEventType, 'ping'>;

/** A recorded event: its JSON is made once, so the feed item and the webhook body are the same bytes. */
export interface StoredEvent {
  seq: number;
  id: string;
  type: EventType;
  occurredAt: number;
  json: string;
  brandId: string;
  subject: 'link' | 'order';
  /** Key whose own request made the change; null for the team, the service or a player. */
  actorKey: string | null;
  /** For order events: the key that placed the order (null for claim orders). */
  orderOwner: string | null;
}

export function linkJson(link: PersonalLink): Record<string, unknown> {
  return {
    id: link.id,
    campaignId: link.campaignId,
    selection: link.campaignId === null ? 'CATALOG' : null,
    brandId: link.brandId,
    status: link.status,
    claimUrl: `${link.site.origin}/claim/${link.id}`,
    customFields: link.customFields,
    expiresAt: formatNullableTimestamp(link.expiresAt),
    createdAt: formatTimestamp(link.createdAt),
    approvedAt: formatNullableTimestamp(link.approvedAt),
    claimedAt: formatNullableTimestamp(link.claimedAt),
    cancelledAt: formatNullableTimestamp(link.cancelledAt),
    updatedAt: formatTimestamp(link.updatedAt),
  };
}

export function orderJson(order: Order): Record<string, unknown> {
  return {
    id: order.id,
    reference: order.reference,
    storeId: order.storeId,
    brandId: order.brandId,
    productId: order.productId,
    productName: order.productName,
    variations: order.variations,
    status: order.status,
    coinPrice: order.coinPrice,
    currency: order.currency,
    deliveryCountry: order.deliveryCountry,
    customFields: order.customFields,
    shipment: order.shipment,
    createdAt: formatTimestamp(order.createdAt),
    updatedAt: formatTimestamp(order.updatedAt),
  };
}

export function keyInfoJson(key: ApiKeyRecord): Record<string, unknown> {
  return {
    name: key.name,
    apiKey: key.apiKey,
    scopes: key.scopes,
    brandIds: key.brandIds,
    webhookUrl: key.webhookUrl,
    webhookSecret: key.webhookSecret,
    revoked: key.revoked,
  };
}
