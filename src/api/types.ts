/** The API's objects, as `api-spec.md` defines them. Unknown fields pass through untouched. */

export type Scope = 'PERSONAL_LINKS' | 'REWARD_STORES';
export type FieldType = 'TEXT' | 'CHECKBOX' | 'DROPDOWN';
export type LinkStatus = 'REQUESTED' | 'ACTIVE' | 'CLAIMED' | 'EXPIRED' | 'CANCELLED';
export type OrderStatus = 'REQUESTED' | 'PROCESSING' | 'SENT' | 'COMPLETED' | 'CANCELLED';
export type CampaignStatus = 'ACTIVE' | 'COMPLETED';
export type StorePhase = 'SCHEDULED' | 'LIVE';

export const LINK_STATUSES: readonly LinkStatus[] = ['REQUESTED', 'ACTIVE', 'CLAIMED', 'EXPIRED', 'CANCELLED'];
export const ORDER_STATUSES: readonly OrderStatus[] = ['REQUESTED', 'PROCESSING', 'SENT', 'COMPLETED', 'CANCELLED'];
export const CAMPAIGN_STATUSES: readonly CampaignStatus[] = ['ACTIVE', 'COMPLETED'];
export const EVENT_TYPES: readonly string[] = ['personal_link.created', 'personal_link.approved', 'personal_link.claimed', 'personal_link.cancelled', 'personal_link.expired', 'order.approved', 'order.cancelled', 'order.sent', 'order.completed', 'ping'];

/** Every event type of the spec's Events table (ping only ever comes from POST /webhooks:test). */
export const EVENT_TYPES = [
  'personal_link.created',
  'personal_link.approved',
  'personal_link.claimed',
  'personal_link.cancelled',
  'personal_link.expired',
  'order.approved',
  'order.cancelled',
  'order.sent',
  'order.completed',
  'ping',
] as const;
export type EventTypeName = (typeof EVENT_TYPES)[number];

export interface TenantCustomField {
  id: string;
  label: string;
  type: FieldType;
  required: boolean;
  options: string[];
}

export interface Brand {
  id: string;
  name: string;
}

export interface Me {
  tenant: { id: string; locales: string[]; approvalRequired: boolean; customFields: TenantCustomField[] };
  key: { name: string; scopes: Scope[]; webhookUrl: string | null };
  brands: Brand[];
  environment: string;
}

export interface Campaign {
  id: string;
  name: string;
  status: CampaignStatus;
  brandIds: string[];
  expiresAt: string | null;
}

export interface CustomFieldAnswer {
  fieldId: string;
  textValue: string | null;
  checked: boolean | null;
}

export interface CustomFieldInput {
  fieldId: string;
  textValue?: string;
  checked?: boolean;
}

export interface PersonalLink {
  id: string;
  campaignId: string | null;
  selection: 'CATALOG' | null;
  brandId: string;
  status: LinkStatus;
  claimUrl: string;
  customFields: CustomFieldAnswer[];
  expiresAt: string | null;
  createdAt: string;
  approvedAt: string | null;
  claimedAt: string | null;
  cancelledAt: string | null;
  updatedAt: string;
}

export interface Image {
  url: string;
  variants: { url: string; width: number }[];
}

export interface RewardStoreSummary {
  id: string;
  name: string;
  brandIds: string[];
  phase: StorePhase;
  startsAt: string | null;
  endsAt: string | null;
}

export interface StoreGiftDimension {
  name: string;
  label: string;
  values: { value: string; label: string }[];
}

export interface StoreGift {
  productId: string;
  name: string;
  description: string | null;
  thumbnail: Image | null;
  gallery: Image[];
  dimensions: StoreGiftDimension[];
  combinations: { variations: Record<string, string> }[];
  coinPrice: string;
}

export interface RewardStore {
  id: string;
  name: string;
  description: string | null;
  phase: StorePhase;
  startsAt: string | null;
  endsAt: string | null;
  banner: Image | null;
  brand: Brand;
  currency: { name: string; symbol: string };
  country: string;
  locale: string;
  sections: { id: string; name: string; items: StoreGift[] }[];
}

export interface RewardStoreOrder {
  id: string;
  reference: string;
  storeId: string;
  brandId: string;
  productId: string;
  productName: string;
  variations: Record<string, string>;
  status: OrderStatus;
  coinPrice: string;
  currency: { name: string; symbol: string };
  deliveryCountry: string;
  customFields: CustomFieldAnswer[];
  shipment: { carrier: string | null; trackingReference: string | null; trackingUrl: string | null } | null;
  createdAt: string;
  updatedAt: string;
}

export interface SvcEvent {
  id: string;
  type: string;
  occurredAt: string;
  environment: string;
  data: Record<string, unknown>;
}

export interface WebhookTestResult {
  responseStatus: number | null;
  error: string | null;
}

export interface CreateLinkRequest {
  campaignId: string;
  fullName: string;
  brandId?: string;
  email?: string;
  message?: string;
  locale?: string;
  customFields?: CustomFieldInput[];
}

export interface PlaceOrderRequest {
  storeId: string;
  brandId: string;
  productId: string;
  variations: Record<string, string>;
  coinPrice: string;
  locale?: string;
  recipient: {
    name: string;
    email?: string;
    phone: string;
    address: { street: string; city: string; postalCode?: string; country: string };
  };
  additionalDetails?: string;
  customFields?: CustomFieldInput[];
}
