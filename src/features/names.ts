/**
 * Names beside ids, for the views people read (tables and detail views only): brand names and
 * custom-field labels from GET /me, campaign names from GET /campaigns. Each is read at most once
 * per run (cached per client), without retries, and any failure (no scope, a network error, a
 * strange answer) leaves the ids standing in: decoration is never worth an error.
 * JSON, JSON lines and CSV never call this, so they make no request for it.
 */
import type { ApiClient } from '../api/client.js';
import { readPage } from '../api/paginate.js';
import type { Campaign, Me } from '../api/types.js';

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

  /** `Name (id)` for a detail view, the id alone when the name is unknown. */
  brandWithId(id: string | null | undefined): string | null {
    return withId(this.brand(id), id);
  }

  campaignWithId(id: string | null | undefined): string | null {
    return withId(this.campaign(id), id);
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

function withId(name: string | undefined, id: string | null | undefined): string | null {
  if (!id) return null;
  return name ? `${name} (${id})` : id;
}

function array<T>(value: readonly T[] | undefined | null): readonly T[] {
  return Array.isArray(value) ? value : [];
}

const cache = new WeakMap<ApiClient, Promise<Names>>();

/**
 * The names this client's key can see, read once per run. `what` limits the reads: a view that shows
 * no campaign does not read /campaigns.
 */
export function namesFor(client: ApiClient, signal: AbortSignal, options: { me?: Me } = {}): Promise<Names> {
  let names = cache.get(client);
  if (!names) {
    names = load(client, signal, options.me);
    cache.set(client, names);
  }
  return names;
}

async function load(client: ApiClient, signal: AbortSignal, known?: Me): Promise<Names> {
  const names = new Names();
  const me = known
    ? Promise.resolve(known)
    : client.request<Me>('GET', '/me', { signal, retry: false }).then((response) => response.body);
  await Promise.all([
    me.then((body) => names.addMe(body)).catch(() => undefined),
    readCampaigns(client, signal, names).catch(() => undefined),
  ]);
  return names;
}

async function readCampaigns(client: ApiClient, signal: AbortSignal, names: Names): Promise<void> {
  let after: string | undefined;
  for (let page = 0; page < MAX_CAMPAIGN_PAGES; page++) {
    const query = { limit: 100, ...(after ? { after } : {}) };
    const { items, nextCursor } = readPage<Campaign>((await client.request('GET', '/campaigns', { query, signal, retry: false })).body);
    names.addCampaigns(items);
    if (!nextCursor || items.length === 0 || nextCursor === after) return;
    after = nextCursor;
  }
}
