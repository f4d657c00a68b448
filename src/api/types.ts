/**
 * The API's objects and enums, derived from the one API description (`openapi/openapi.yaml`):
 * `npm run build` generates `./generated/` from it. Import enums and types from here; never write an
 * API enum or limit again by hand. Unknown fields of answers pass through untouched.
 */
import type { components } from './generated/types.js';
import {
  CAMPAIGN_STATUSES as CAMPAIGN_STATUS_VALUES,
  EVENT_TYPES as EVENT_TYPE_VALUES,
  FEED_EVENT_TYPES as FEED_EVENT_TYPE_VALUES,
  FIELD_TYPES as FIELD_TYPE_VALUES,
  LINK_STATUSES as LINK_STATUS_VALUES,
  ORDER_STATUSES as ORDER_STATUS_VALUES,
  SCOPES as SCOPE_VALUES,
  STORE_PHASES as STORE_PHASE_VALUES,
} from './generated/constants.js';

export {
  API_KEY,
  API_VERSION,
  COUNTRY_CODES,
  ERROR_CODES,
  FIELD_ERROR_CODES,
  GIFT_NOT_AVAILABLE_REASONS,
  LIMITS as API_LIMITS,
  NOT_CANCELLABLE_REASONS,
  OPERATIONS,
  PATTERNS as API_PATTERNS,
  type OperationId,
} from './generated/constants.js';

type Schemas = components['schemas'];

export type Scope = Schemas['Scope'];
export type FieldType = Schemas['FieldType'];
export type LinkStatus = Schemas['LinkStatus'];
export type OrderStatus = Schemas['OrderStatus'];
export type CampaignStatus = Schemas['CampaignStatus'];
export type StorePhase = Schemas['StorePhase'];
export type EventType = Schemas['EventType'];
/** Open: a code added later is a string outside KnownErrorCode (ERROR_CODES lists the known ones). */
export type ErrorCode = Schemas['ErrorCode'];
export type KnownErrorCode = Schemas['KnownErrorCode'];
export type FieldErrorCode = Schemas['FieldErrorCode'];
export type GiftNotAvailableReason = Schemas['GiftNotAvailableReason'];
export type CountryCode = Schemas['CountryCode'];

export const LINK_STATUSES: readonly LinkStatus[] = LINK_STATUS_VALUES;
export const ORDER_STATUSES: readonly OrderStatus[] = ORDER_STATUS_VALUES;
export const CAMPAIGN_STATUSES: readonly CampaignStatus[] = CAMPAIGN_STATUS_VALUES;
export const SCOPES: readonly Scope[] = SCOPE_VALUES;
export const FIELD_TYPES: readonly FieldType[] = FIELD_TYPE_VALUES;
export const STORE_PHASES: readonly StorePhase[] = STORE_PHASE_VALUES;
/** Every event type, `ping` included (only POST /webhooks:test sends it). */
export const EVENT_TYPES: readonly EventType[] = EVENT_TYPE_VALUES;
/** The event types of the feed (GET /events): all but `ping`. */
export const FEED_EVENT_TYPES: readonly EventType[] = FEED_EVENT_TYPE_VALUES;

export type TenantCustomField = Schemas['TenantCustomField'];
export type Brand = Schemas['Brand'];
export type Me = Schemas['Me'];
export type Campaign = Schemas['Campaign'];
export type CustomFieldAnswer = Schemas['CustomFieldAnswer'];
/** An answer as requests carry it: `{fieldId, textValue?}` or `{fieldId, checked?}`. */
export type CustomFieldInput = Schemas['CustomFieldAnswerInput'];
export type PersonalLink = Schemas['PersonalLink'];
export type Image = Schemas['Image'];
export type RewardStoreSummary = Schemas['RewardStoreSummary'];
export type StoreGiftDimension = Schemas['StoreGiftDimension'];
export type StoreGift = Schemas['StoreGift'];
export type RewardStore = Schemas['RewardStore'];
export type RewardStoreOrder = Schemas['RewardStoreOrder'];
export type WebhookTestResult = Schemas['WebhookTestResult'];
export type ProblemDetail = Schemas['ProblemDetail'];
export type FieldError = Schemas['FieldError'];

/**
 * An event as the feed and webhooks carry it. `type` and `data` stay open: a client must pass on
 * event types a later revision adds, so code branches on `type` and reads `data` by it.
 */
export type SvcEvent = Omit<Schemas['PersonalLinkEvent'], 'type' | 'environment' | 'data'> & {
  type: EventType | (string & {});
  environment: string;
  data: Record<string, unknown>;
};

export type CreateLinkRequest = Schemas['CreatePersonalLinkRequest'];
/** The order body as svc sends it: always with `variations` (`{}` for a gift without options). */
export type PlaceOrderRequest = Schemas['PlaceRewardStoreOrderRequest'] & { variations: Schemas['Variations'] };
