/**
 * Names beside ids, for the views people read (tables and detail views only): brand names and
 * custom-field labels from GET /me, campaign names from GET /campaigns. Each is read at most once
 * per run (cached per client), without retries, and any failure (no scope, a network error, a
 * strange answer) leaves the ids standing in: decoration is never worth an error.
 * JSON, JSON lines and CSV never call this, so they make no request for it.
 */
import type { ApiClient } from '../api/client.js';
import { readPage } from '../api/paginate.js';
import { API_LIMITS, type Campaign, type Me } from '../api/types.js';
import { getMe, listCampaigns } from '../api/resources.js';
import type { DetailRow } from '../core/output.js';

/** Campaign pages read at most (100 each): names past that fall back to ids. */
const MAX_CAMPAIGN_PAGES = 10;

export class Names {
  readonly brands = new Map<string, string>();
  readonly campaigns = new Map<string, string>();
  readonly fields = new Map<string, string>();

  /** The brand's name, or undefined when unknown. */
  brand(id: unknown): string | undefined {
    return typeof id === 'string' ? this.brands.get(id.toLowerCase()) : undefined;
  }

  campaign(id: unknown): string | undefined {
    return typeof id === 'string' ? this.campaigns.get(id.toLowerCase()) : undefined;
  }

  field(id: unknown): string | undefined {
    return typeof id === 'string' ? this.fields.get(id.toLowerCase()) : undefined;
  }

  /** A detail view's row: `Name (id)`, the name shrinking before the id; the id alone when the name is unknown. */
  brandRow(label: string, id: string | null | undefined): DetailRow {
    return namedRow(label, this.brand(id), id);
  }

  campaignRow(label: string, id: string | null | undefined): DetailRow {
    return namedRow(label, this.campaign(id), id);
  }

  /** Learns what a /me answer says (a command that read /me already shares it). */
  addMe(me: Me | undefined): void {
    for (const brand of array(me?.brands)) if (typeof brand?.id === 'string') this.brands.set(brand.id.toLowerCase(), String(brand.name ?? ''));
    for (const field of array(me?.tenant?.customFields)) if (typeof field?.id === 'string') this.fields.set(field.id.toLowerCase(), String(field.label ?? ''));
  }

  addCampaigns(campaigns: readonly Campaign[]): void {
    for (const campaign of campaigns) if (typeof campaign?.id === 'string') this.campaigns.set(campaign.id.toLowerCase(), String(campaign.name ?? ''));
  }
}

function namedRow(label: string, name: string | undefined, id: string | null | undefined): DetailRow {
  if (!id) return { label, value: null };
  return name ? { label, value: name, after: ` (${id})` } : { label, value: id, whole: true };
}

function array<T>(value: readonly T[] | undefined | null): readonly T[] {
  return Array.isArray(value) ? value : [];
}

interface Cached {
  names: Names;
  me?: Promise<void>;
  campaigns?: Promise<void>;
}

const cache = new WeakMap<ApiClient, Cached>();

/**
 * The names this client's key can see, each source read at most once per run: GET /me (brands,
 * field labels) always, GET /campaigns only for a view that shows campaigns (`campaigns: true`).
 * `me`: an answer the command already read, used instead of reading it again.
 */
export async function namesFor(client: ApiClient, signal: AbortSignal, options: { me?: Me; campaigns?: boolean } = {}): Promise<Names> {
  let cached = cache.get(client);
  if (!cached) cache.set(client, (cached = { names: new Names() }));
  const { names } = cached;
  cached.me ??= (options.me ? Promise.resolve(options.me) : getMe(client, { signal, retry: false }).then((response) => response.body))
    .then((body) => names.addMe(body))
    .catch(() => undefined);
  if (options.campaigns) cached.campaigns ??= readCampaigns(client, signal, names).catch(() => undefined);
  await Promise.all([cached.me, cached.campaigns]);
  return names;
}

async function readCampaigns(client: ApiClient, signal: AbortSignal, names: Names): Promise<void> {
  let after: string | undefined;
  for (let page = 0; page < MAX_CAMPAIGN_PAGES; page++) {
    const query = { limit: API_LIMITS.pageSizeMax, ...(after ? { after } : {}) };
    const { items, nextCursor } = readPage<Campaign>((await listCampaigns(client, query, { signal, retry: false })).body);
    names.addCampaigns(items);
    if (!nextCursor || items.length === 0 || nextCursor === after) return;
    after = nextCursor;
  }
}
