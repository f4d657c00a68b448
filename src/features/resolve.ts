/**
 * Identifiers people have, turned into the ids the API takes, in one place:
 *
 * - an order reference (`SVC-000008`) wherever an order id is asked for: the key's orders
 *   (GET /reward-store-orders, 100 a page) are read until the first order with that reference (a
 *   reference names one order, so the walk stops there);
 * - a campaign name for `--campaign`: GET /campaigns (ACTIVE, then COMPLETED when no active one has
 *   it), every page, since a name must be unique to stand for an id;
 * - a brand name for `--brand`: the key's brands from GET /me (one read);
 * - a custom-field answer for `links ls --field`: the field by label or id from GET /me.
 *
 * Names match ignoring case and surrounding spaces; two matches are a usage error (exit 2) listing
 * the candidates with their ids. A UUID is taken as it is, with no request. Each resolution says
 * what it read on stderr with `--debug`.
 */
import type { ApiClient } from '../api/client.js';
import { pagesOf } from '../api/paginate.js';
import { getMe, listCampaigns, listRewardStoreOrders } from '../api/resources.js';
import { API_LIMITS, type Campaign, type PersonalLink, type RewardStoreOrder } from '../api/types.js';
import type { Context } from '../app/context.js';
import { ExitCode, SvcError, UsageError } from '../core/errors.js';
import { terminalSafeLine } from '../core/sanitize.js';
import * as validate from '../api/checks.js';
import { parseFieldFlags } from './fields.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A value begun as an id (eight hex digits and a dash) that is not one: a malformed id, refused before any request. */
const ID_SHAPED = /^[0-9a-f]{8}-[0-9a-f-]*$/i;
/** How an order reference reads (`SVC-000008`): letters, a dash, digits. Anything else must be an id. */
const REFERENCE = /^[a-z][a-z0-9]*-\d+$/i;

/** Where the team sees what a key cannot: orders placed by a player's claim belong to no key. */
const CLAIM_ORDERS_NOTE = 'orders placed by a player claiming a link belong to no key, so the API never shows them to a key; the team sees them in the workspace';

/** No order of this key has the reference (exit 3). */
class ReferenceNotFoundError extends SvcError {
  constructor(name: string, reference: string, read: number) {
    super(`${name}: no order with reference ${reference} among the ${read} orders this key placed`, ExitCode.notFound, 'not_found', CLAIM_ORDERS_NOTE);
  }
}

export function isUuid(value: string): boolean {
  return UUID.test(value.trim());
}

function isReference(value: string): boolean {
  return REFERENCE.test(value.trim());
}

/**
 * For the checks a verb makes before any request: a name stands as a well-formed id until it is
 * looked up (after those checks), so a mistake in another flag costs no round trip.
 */
export function checkedLater(value: string | undefined): string | undefined {
  return value === undefined || isUuid(value) || value.trim() === '' ? value : STAND_IN;
}

const STAND_IN = '00000000-0000-4000-8000-000000000000';

/** An order id, or the id of the key's order with this reference. */
export async function orderId(ctx: Context, value: string, name: string): Promise<string> {
  if (isUuid(value) || !isReference(value)) return validate.uuid(value.trim(), name);
  return orderIdOf(await ctx.client(), ctx.signal, value, name, (line) => debug(ctx, line));
}

/**
 * The same for a caller with a client of its own (the `svc mcp` tools): an order id as it is, or
 * the id of this client's order with the reference; `log` gets the --debug lines.
 */
export async function orderIdOf(client: ApiClient, signal: AbortSignal, value: string, name: string, log: (line: string) => void = () => undefined): Promise<string> {
  if (isUuid(value) || !isReference(value)) return validate.uuid(value.trim(), name);
  const wanted = value.trim().toUpperCase();
  let read = 0;
  let pages = 0;
  for await (const page of pagesOf(client, listRewardStoreOrders, { limit: API_LIMITS.pageSizeMax, all: true, signal })) {
    pages++;
    const found = page.items.find((order: RewardStoreOrder) => typeof order?.reference === 'string' && order.reference.toUpperCase() === wanted);
    read += page.items.length;
    if (found) {
      log(`resolve: ${name} ${value} is order ${found.id} (GET /reward-store-orders, ${plural(pages, 'page')})`);
      return found.id;
    }
  }
  log(`resolve: ${name} ${value}: no such reference (GET /reward-store-orders, ${plural(pages, 'page')}, ${read} orders)`);
  throw new ReferenceNotFoundError(name, value.trim(), read);
}

/** `--order`: an id or a reference; undefined when not given. */
export async function optionalOrderId(ctx: Context, value: string | undefined, name = '--order'): Promise<string | undefined> {
  return value === undefined ? undefined : orderId(ctx, value, name);
}

/** `--campaign`: a campaign id, or the one campaign with this name; undefined when not given. */
export async function campaignId(ctx: Context, value: string | undefined, name = '--campaign'): Promise<string | undefined> {
  if (value === undefined || isUuid(value)) return value?.trim();
  if (ID_SHAPED.test(value.trim())) return validate.uuid(value.trim(), name);
  if (value.trim() === '') throw new UsageError(`${name}: required`);
  const client = await ctx.client();
  for (const status of ['ACTIVE', 'COMPLETED'] as const) {
    const { matches, pages } = await campaignsNamed(client, ctx.signal, value, status);
    debug(ctx, `resolve: ${name} "${value}": ${plural(matches.length, 'match', 'matches')} among ${status} campaigns (GET /campaigns?status=${status}, ${plural(pages, 'page')})`);
    if (matches.length > 0) return unique(name, value, 'campaigns', matches);
  }
  throw new UsageError(`${name}: not a campaign id, and no campaign this key can use is named "${value.trim()}" (svc campaigns ls lists them)`);
}

async function campaignsNamed(client: ApiClient, signal: AbortSignal, value: string, status: 'ACTIVE' | 'COMPLETED'): Promise<{ matches: Campaign[]; pages: number }> {
  const matches: Campaign[] = [];
  let pages = 0;
  for await (const page of pagesOf(client, listCampaigns, { query: { status }, limit: API_LIMITS.pageSizeMax, all: true, signal })) {
    pages++;
    matches.push(...page.items.filter((campaign) => sameName(campaign?.name, value)));
  }
  return { matches, pages };
}

/** `--brand`: a brand id, or the one brand of the key with this name; undefined when not given. */
export async function brandId(ctx: Context, value: string | undefined, name = '--brand'): Promise<string | undefined> {
  if (value === undefined || isUuid(value)) return value?.trim();
  if (ID_SHAPED.test(value.trim())) return validate.uuid(value.trim(), name);
  if (value.trim() === '') throw new UsageError(`${name}: required`);
  const client = await ctx.client();
  const brands = (await getMe(client, { signal: ctx.signal })).body?.brands ?? [];
  const matches = brands.filter((brand) => sameName(brand?.name, value));
  debug(ctx, `resolve: ${name} "${value}": ${plural(matches.length, 'match', 'matches')} among the key's ${brands.length} brands (GET /me)`);
  if (matches.length === 0) {
    const known = brands.map((brand) => `"${brand.name}"`).join(', ') || 'none';
    throw new UsageError(`${name}: no brand named "${value.trim()}" for this key (its brands: ${known})`);
  }
  return unique(name, value, 'brands', matches);
}

/**
 * `links ls --field "Player ID=12345"`: which links hold these answers (every one given), the field
 * named by its label or id (GET /me), the value read by the field's type (a checkbox true/false, a
 * dropdown one of its options, text ignoring case and surrounding spaces). Undefined when none given.
 */
export async function linkFieldFilter(ctx: Context, values: readonly string[] | undefined, name = '--field'): Promise<((link: PersonalLink) => boolean) | undefined> {
  if (!values || values.length === 0) return undefined;
  const client = await ctx.client();
  const fields = (await getMe(client, { signal: ctx.signal })).body?.tenant?.customFields ?? [];
  const wanted = parseFieldFlags(values, fields, name);
  if (wanted.length === 0) throw new UsageError(`${name}: give a value to look for (FIELD=VALUE)`);
  debug(ctx, `resolve: ${name} ${wanted.map((answer) => `field ${answer.fieldId}`).join(', ')} (GET /me); links are read and kept when they hold the answer`);
  return (link) =>
    wanted.every((answer) => {
      const held = (Array.isArray(link?.customFields) ? link.customFields : []).find((entry) => entry?.fieldId?.toLowerCase() === answer.fieldId.toLowerCase());
      if (!held) return false;
      if (answer.checked !== undefined) return held.checked === answer.checked;
      return typeof held.textValue === 'string' && held.textValue.trim().toLowerCase() === String(answer.textValue).trim().toLowerCase();
    });
}

function unique(name: string, value: string, noun: string, matches: readonly { id: string; name: string }[]): string {
  if (matches.length === 1) return matches[0].id;
  const candidates = matches.map((match) => `${terminalSafeLine(match.name)} (${match.id})`).join(', ');
  throw new UsageError(`${name}: "${value.trim()}" names ${matches.length} ${noun}: ${candidates}; give the id`);
}

function sameName(name: unknown, value: string): boolean {
  return typeof name === 'string' && name.trim().toLowerCase() === value.trim().toLowerCase();
}

function debug(ctx: Context, line: string): void {
  if (ctx.debugEnabled) ctx.io.info(terminalSafeLine(line));
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

