import { API_LIMITS } from '../api/types.js';
import { LATEST_TEXT, formatNullableTimestamp, formatTimestamp } from './clock.js';
import { ApiProblem, invalidField, notFound } from './errors.js';
import { type Faults, readFaultsBody } from './faults.js';
import type { IdempotencyStore } from './idempotency.js';
import { type Campaign, SCOPES, type Scope, keyInfoJson, linkJson, orderJson, type Order, type PersonalLink } from './models.js';
import type { RateLimiter } from './ratelimit.js';
import { type ApiResult, Router, bodyObject, ok, pathRecord } from './router.js';
import { type SandboxState, TransitionError, sameVariations } from './store.js';
import { FieldErrors, isCountry, isDecimal, isPlainObject, readCustomFieldAnswers } from './validate.js';
import type { WebhookQueue } from './webhooks.js';
import { readClaim } from './web/offer.js';
import { isLoopbackHost } from '../core/net.js';

/*
 * The admin API under /_sandbox (loopback clients only, no key) stands in for the operator's team
 * and the service. Paths are those docs/sandbox.md lists (Admin API), plus a few extras:
 * - GET /clock → {now}: the virtual time, so scripts can see where the clock stands;
 * - PATCH /settings also takes `requiredCustomFieldIds: string[]`, making exactly those custom
 *   fields required (the seed has none required), to exercise the required-field rule;
 * - POST /campaigns/{id}/reopen: a COMPLETED campaign takes links again (its expired links stay EXPIRED);
 * - POST /campaigns `{brandIds, name?}`: a new ACTIVE campaign (so one link can expire with its own campaign);
 * - POST /links/{id}/cancel `{reason?}`: the team withdraws a REQUESTED or ACTIVE link;
 * - GET /gifts: every gift of every store, including those a store read leaves out (unpublished,
 *   not yet available, sold out), so each gift_not_available reason can be triggered;
 * - PATCH /gifts/{productId} `{published?, prices?: {default|CC: "decimal"}, stock?: [{variations, stock}]}`.
 * A claim (POST /links/{id}/claim `{productId, variations, recipient}`, the gift site's form sends
 * the same) places an order for the chosen gift (see web/offer.ts); without a body, for the first
 * gift the link offers. That order belongs to no key and never shows the recipient.
 * Moves the current status does not allow are 409 `invalid_transition`.
 */

/** What the admin API changes: the parts of a sandbox that stand in for the team and the service. */
export interface AdminServices {
  state: SandboxState;
  webhooks: WebhookQueue;
  limiter: RateLimiter;
  idempotency: IdempotencyStore;
  faults: Faults;
}

interface AdminContext {
  services: AdminServices;
  params: Record<string, string>;
  body: unknown;
}

interface AdminRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  path: string;
  handle(ctx: AdminContext): ApiResult | Promise<ApiResult>;
}

/** Runs a state move; a move the current status does not allow is 409. */
function transition<T>(move: () => T): T {
  try {
    return move();
  } catch (err) {
    if (err instanceof TransitionError) throw new ApiProblem(409, 'invalid_transition', err.message);
    throw err;
  }
}

function adminLink(ctx: AdminContext): PersonalLink {
  return pathRecord(ctx, 'id', 'The link', (id) => ctx.services.state.link(id));
}

function orderMove(path: string, move: (state: SandboxState, order: Order, body: Record<string, unknown>) => void): AdminRoute {
  return {
    method: 'POST',
    path: `/orders/{id}/${path}`,
    handle: (ctx) => {
      const order = pathRecord(ctx, 'id', 'The order', (id) => ctx.services.state.order(id));
      transition(() => move(ctx.services.state, order, bodyObject(ctx.body)));
      return ok(orderJson(order));
    },
  };
}

function campaignMove(path: string, move: (state: SandboxState, campaign: Campaign) => void): AdminRoute {
  return {
    method: 'POST',
    path: `/campaigns/{id}/${path}`,
    handle: (ctx) => {
      const campaign = pathRecord(ctx, 'id', 'The campaign', (id) => ctx.services.state.campaign(id));
      transition(() => move(ctx.services.state, campaign));
      return ok({ id: campaign.id, name: campaign.name, status: campaign.status });
    },
  };
}

/** The most requests a minute the settings take (the rate limiter keeps up to this many times per client). */
const MAX_RATE_LIMIT = 1_000_000;

/** A price the sandbox can show and the CLI can add up exactly: a decimal of at most 15 + 6 digits. */
function isPrice(value: unknown): boolean {
  return isDecimal(value) && /^\d{1,15}(\.\d{1,6})?$/.test(value);
}

function optionalText(body: Record<string, unknown>, name: string, errors: FieldErrors): string | null {
  return errors.optionalString(body[name], name, 1000) ?? null;
}

/** https:// anywhere; plain http:// only to a loopback host (never the metadata address or a private one). */
function isWebhookUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  } catch {
    return false;
  }
}

/** A Host header value naming a loopback host, with an optional port. */
function isLoopbackHostHeader(host: string | undefined): boolean {
  if (host === undefined) return false;
  const match = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(host.trim());
  return match !== null && isLoopbackHost(match[1]);
}

/** An Origin is acceptable only when it is itself loopback: `http(s)://localhost[:port]` and the like. */
function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/**
 * The key-less admin API's guard, checked before routing: the request must name a loopback Host (a
 * DNS-rebinding page names its own host) and carry no Origin of another site (a cross-site request
 * from a page the operator visits carries that page's Origin). 403 otherwise.
 */
export function guardAdminRequest(headers: { host?: string; origin?: string | string[] }): void {
  if (!isLoopbackHostHeader(headers.host)) {
    throw new ApiProblem(403, 'forbidden', 'The admin API answers only requests addressed to a loopback host (localhost, 127.0.0.1, [::1]).');
  }
  const origin = headers.origin;
  if (origin !== undefined && (Array.isArray(origin) || !isLoopbackOrigin(origin))) {
    throw new ApiProblem(403, 'forbidden', 'The admin API refuses requests from another site (its Origin is not a loopback address).');
  }
}

const routes: AdminRoute[] = [
  {
    method: 'POST',
    path: '/links',
    handle: ({ services: { state }, body: rawBody }) => {
      const body = bodyObject(rawBody);
      const errors = new FieldErrors();
      const campaignId = errors.optionalUuid(body.campaignId, 'campaignId');
      const brandId = errors.requiredUuid(body.brandId, 'brandId');
      const fullName = errors.requiredString(body.fullName, 'fullName', API_LIMITS.linkFullName);
      const customFields = readCustomFieldAnswers(body.customFields, state.tenant.customFields, errors);
      if (brandId !== undefined && state.brand(brandId) === undefined) errors.add('brandId', 'invalid', `There is no brand ${brandId}.`);
      errors.throwIfAny();
      const campaign = campaignId === undefined ? null : state.campaign(campaignId);
      if (campaign === undefined || (campaign !== null && !campaign.brandIds.includes(brandId as string))) {
        throw new ApiProblem(422, 'campaign_not_found', `Campaign ${campaignId} does not exist or does not serve brand ${brandId}.`);
      }
      if (campaign !== null && !state.campaignIsActive(campaign)) {
        throw new ApiProblem(422, 'campaign_not_active', `Campaign ${campaign.id} is not active.`);
      }
      const link = state.createLink({
        campaign,
        brandId: brandId as string,
        fullName: fullName as string,
        email: null,
        message: null,
        locale: 'en-US',
        customFields,
        createdBy: null,
      });
      return ok(linkJson(link), 201);
    },
  },
  {
    method: 'POST',
    path: '/links/{id}/approve',
    handle: (ctx) => {
      const link = adminLink(ctx);
      transition(() => ctx.services.state.approveLink(link));
      return ok(linkJson(link));
    },
  },
  {
    method: 'POST',
    path: '/links/{id}/claim',
    handle: (ctx) => {
      const link = adminLink(ctx);
      const { state } = ctx.services;
      // An answer is only read for a link that can be claimed: a closed link is 409 whatever was sent.
      transition(() => state.assertClaimable(link));
      const choice = readClaim(state, link, bodyObject(ctx.body));
      const order = transition(() => state.claimLink(link, choice));
      return ok({ link: linkJson(link), order: orderJson(order) });
    },
  },
  {
    method: 'POST',
    path: '/links/{id}/cancel',
    handle: (ctx) => {
      const link = adminLink(ctx);
      const errors = new FieldErrors();
      const reason = errors.optionalString(bodyObject(ctx.body).reason, 'reason', 1000) ?? 'Withdrawn by the team.';
      errors.throwIfAny();
      transition(() => ctx.services.state.cancelLink(link, reason, null));
      return ok(linkJson(link));
    },
  },
  {
    method: 'POST',
    path: '/campaigns',
    handle: ({ services: { state }, body: rawBody }) => {
      const body = bodyObject(rawBody);
      const errors = new FieldErrors();
      const name = errors.optionalString(body.name, 'name', 255) ?? 'Sandbox Campaign';
      const { brandIds } = body;
      if (!Array.isArray(brandIds) || brandIds.length === 0 || !brandIds.every((id) => typeof id === 'string' && state.brand(id) !== undefined)) {
        errors.add('brandIds', brandIds === undefined ? 'required' : 'invalid', 'brandIds must be a non-empty list of brand ids.');
      }
      errors.throwIfAny();
      const campaign: Campaign = { id: state.newId(), name, status: 'ACTIVE', brandIds: [...new Set(brandIds as string[])], expiresAt: null };
      state.campaigns.push(campaign);
      return ok({ id: campaign.id, name: campaign.name, status: campaign.status, brandIds: campaign.brandIds }, 201);
    },
  },
  orderMove('approve', (state, order) => state.approveOrder(order)),
  orderMove('reject', (state, order) => state.rejectOrder(order)),
  orderMove('ship', (state, order, body) => {
    const errors = new FieldErrors();
    const shipment = {
      carrier: optionalText(body, 'carrier', errors) ?? 'DHL',
      trackingReference: optionalText(body, 'trackingReference', errors) ?? `TRK${order.reference.replace(/\D/g, '')}`,
      trackingUrl: optionalText(body, 'trackingUrl', errors),
    };
    errors.throwIfAny();
    state.shipOrder(order, shipment);
  }),
  orderMove('deliver', (state, order) => state.deliverOrder(order)),
  orderMove('cancel', (state, order) => state.cancelOrder(order)),
  campaignMove('complete', (state, campaign) => state.completeCampaign(campaign)),
  campaignMove('reopen', (state, campaign) => state.reopenCampaign(campaign)),
  {
    method: 'GET',
    path: '/gifts',
    handle: ({ services: { state } }) =>
      ok({
        items: state.stores.flatMap((store) =>
          store.sections.flatMap((section) =>
            section.gifts.map((gift) => ({
              storeId: store.id,
              productId: gift.productId,
              name: gift.name['en-US'],
              published: gift.published,
              prices: gift.prices,
              countries: gift.countries,
              brandIds: gift.brandIds,
              availableFrom: formatNullableTimestamp(gift.availableFrom),
              availableUntil: formatNullableTimestamp(gift.availableUntil),
              combinations: gift.combinations,
            })),
          ),
        ),
      }),
  },
  {
    method: 'PATCH',
    path: '/gifts/{id}',
    handle: (ctx) => {
      const { state } = ctx.services;
      const gift = pathRecord(ctx, 'id', 'The gift', (productId) => state.gift(productId));
      const body = bodyObject(ctx.body);
      const errors = new FieldErrors();
      const published = errors.optionalBoolean(body.published, 'published');
      const prices = body.prices;
      if (prices !== undefined && (!isPlainObject(prices) || !Object.entries(prices).every(([c, p]) => (c === 'default' || isCountry(c)) && isPrice(p)))) {
        errors.add('prices', 'invalid', 'prices must map "default" or a country code to a decimal string (up to 15 digits before the point and 6 after).');
      }
      const stock = body.stock;
      if (stock !== undefined && (!Array.isArray(stock) || !stock.every((e) => isPlainObject(e) && isPlainObject(e.variations) && Number.isSafeInteger(e.stock) && (e.stock as number) >= 0))) {
        errors.add('stock', 'invalid', `stock must list {variations, stock} entries, stock a whole number from 0 to ${Number.MAX_SAFE_INTEGER}.`);
      }
      errors.throwIfAny();
      if (published !== undefined) gift.published = published;
      if (isPlainObject(prices)) for (const [country, price] of Object.entries(prices)) gift.prices[country] = price as string;
      if (Array.isArray(stock)) {
        for (const entry of stock as { variations: Record<string, string>; stock: number }[]) {
          const combination = gift.combinations.find((c) => sameVariations(c.variations, entry.variations));
          if (combination !== undefined) combination.stock = entry.stock;
        }
      }
      return ok({ productId: gift.productId, published: gift.published, prices: gift.prices, combinations: gift.combinations });
    },
  },
  {
    method: 'GET',
    path: '/clock',
    handle: ({ services: { state } }) => ok({ now: formatTimestamp(state.clock.now()) }),
  },
  {
    method: 'POST',
    path: '/clock',
    handle: async ({ services, body: rawBody }) => {
      const body = bodyObject(rawBody);
      const seconds = body.advanceSeconds;
      if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
        const code = seconds === undefined ? 'required' : 'invalid';
        throw invalidField('advanceSeconds', code, 'advanceSeconds must be a number, 0 or more.', 'advanceSeconds must be a number of seconds, 0 or more.');
      }
      const most = services.state.clock.maxAdvanceSeconds();
      if (seconds > most) {
        const text = `advanceSeconds must be at most ${most}: the sandbox's clock cannot go past ${LATEST_TEXT}.`;
        throw invalidField('advanceSeconds', 'invalid', text, text);
      }
      services.state.clock.advance(seconds);
      services.state.sweep();
      services.idempotency.prune();
      // Answer once the retries that became due have been attempted, so callers can check them.
      await services.webhooks.runDue();
      return ok({ now: formatTimestamp(services.state.clock.now()) });
    },
  },
  {
    method: 'PATCH',
    path: '/settings',
    handle: async ({ services, body: rawBody }) => {
      const { state, limiter } = services;
      const body = bodyObject(rawBody);
      const errors = new FieldErrors();
      const approvalRequired = errors.optionalBoolean(body.approvalRequired, 'approvalRequired');
      const apiAccess = errors.optionalBoolean(body.apiAccess, 'apiAccess');
      const limit = body.rateLimitPerMinute;
      if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_RATE_LIMIT)) {
        errors.add('rateLimitPerMinute', 'invalid', `rateLimitPerMinute must be a whole number from 1 to ${MAX_RATE_LIMIT}.`);
      }
      const required = body.requiredCustomFieldIds;
      if (required !== undefined && (!Array.isArray(required) || !required.every((id) => state.tenant.customFields.some((f) => f.id === id)))) {
        errors.add('requiredCustomFieldIds', 'invalid', 'requiredCustomFieldIds must list ids of the account\'s custom fields.');
      }
      errors.throwIfAny();
      if (approvalRequired !== undefined) state.tenant.approvalRequired = approvalRequired;
      if (typeof limit === 'number') {
        state.tenant.rateLimitPerMinute = limit;
        limiter.setLimit(limit);
      }
      if (Array.isArray(required)) {
        for (const field of state.tenant.customFields) field.required = required.includes(field.id);
      }
      if (apiAccess !== undefined) {
        state.tenant.apiAccess = apiAccess;
        // Webhooks paused while access was off go out now.
        if (apiAccess) await services.webhooks.runDue();
      }
      const { tenant } = state;
      return ok({
        approvalRequired: tenant.approvalRequired,
        apiAccess: tenant.apiAccess,
        rateLimitPerMinute: tenant.rateLimitPerMinute,
        requiredCustomFieldIds: tenant.customFields.filter((f) => f.required).map((f) => f.id),
      });
    },
  },
  {
    method: 'PATCH',
    path: '/keys/{name}',
    handle: ({ services: { state }, params, body: rawBody }) => {
      const key = state.keyByName(params.name);
      if (key === undefined) throw notFound(`The key ${params.name}`);
      const body = bodyObject(rawBody);
      const errors = new FieldErrors();
      const { webhookUrl, scopes, brandIds } = body;
      if (webhookUrl !== undefined && webhookUrl !== null && (typeof webhookUrl !== 'string' || !isWebhookUrl(webhookUrl))) {
        errors.add('webhookUrl', 'invalid', 'webhookUrl must be an https:// URL, an http:// URL to a loopback host, or null.');
      }
      if (scopes !== undefined && (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((s) => SCOPES.includes(s as Scope)))) {
        errors.add('scopes', 'invalid', `scopes must be a non-empty list of ${SCOPES.join(', ')}.`);
      }
      if (brandIds !== undefined && (!Array.isArray(brandIds) || brandIds.length === 0 || !brandIds.every((id) => typeof id === 'string' && state.brand(id) !== undefined))) {
        errors.add('brandIds', 'invalid', 'brandIds must be a non-empty list of brand ids.');
      }
      const revoked = errors.optionalBoolean(body.revoked, 'revoked');
      errors.throwIfAny();
      if (webhookUrl !== undefined) key.webhookUrl = webhookUrl as string | null;
      if (scopes !== undefined) key.scopes = [...new Set(scopes as Scope[])];
      if (brandIds !== undefined) key.brandIds = [...new Set(brandIds as string[])];
      if (revoked !== undefined) key.revoked = revoked;
      return ok(keyInfoJson(key));
    },
  },
  {
    method: 'PUT',
    path: '/faults',
    handle: ({ services, body }) => {
      const errors = new FieldErrors();
      const faults = readFaultsBody(body ?? {}, errors);
      errors.throwIfAny();
      Object.assign(services.faults, faults);
      return ok(services.faults);
    },
  },
  {
    method: 'GET',
    path: '/deliveries',
    handle: ({ services }) => ok({ items: services.webhooks.records, nextCursor: null }),
  },
];

const router = new Router(routes);

/**
 * Routes first (404/405 before anything is read), then the body, then the move. The workspace's
 * forms call this too, with the body their fields make: one code path for every team action.
 */
export async function handleAdmin(services: AdminServices, method: string, path: string, readBody: () => Promise<unknown>): Promise<ApiResult> {
  const { route, params } = router.match(method, path);
  const body = await readBody();
  return route.handle({ services, params, body });
}
