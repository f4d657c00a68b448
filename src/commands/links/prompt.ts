/** The questions `links create` asks on a TTY, one function per value, each asked only when missing. */
import type { ApiClient } from '../../api/client.js';
import { pagesOf } from '../../api/paginate.js';
import { listCampaigns } from '../../api/resources.js';
import { API_LIMITS, type Campaign, type Me } from '../../api/types.js';
import { FailureError } from '../../core/errors.js';
import type { Prompter } from '../../core/prompter.js';
import * as validate from '../../api/checks.js';
import { brandNames } from '../../features/choose.js';
import { LIMITS, lengthRule, promptRule } from '../../features/fields.js';

/** Every ACTIVE campaign the key can use (the default status of GET /campaigns), streamed page by page. */
async function* activeCampaigns(client: ApiClient, signal: AbortSignal): AsyncGenerator<Campaign> {
  for await (const page of pagesOf(client, listCampaigns, { all: true, limit: API_LIMITS.pageSizeMax, signal })) yield* page.items;
}

/** The ACTIVE campaign with this id, or undefined when the key cannot use it or it is not active. */
export async function findActiveCampaign(client: ApiClient, id: string, signal: AbortSignal): Promise<Campaign | undefined> {
  for await (const campaign of activeCampaigns(client, signal)) if (campaign.id === id) return campaign;
  return undefined;
}

export async function pickCampaign(prompter: Prompter, client: ApiClient, me: Me, signal: AbortSignal): Promise<Campaign> {
  const campaigns: Campaign[] = [];
  for await (const campaign of activeCampaigns(client, signal)) campaigns.push(campaign);
  if (campaigns.length === 0) throw new FailureError('no ACTIVE campaign is usable by this key', 'no_campaigns', 'ask your team to open a campaign for one of your brands');
  const names = brandNames(me.brands);
  return prompter.search(
    'Campaign (type to filter)',
    campaigns.map((campaign) => ({
      name: campaign.name,
      value: campaign,
      description: `${campaign.brandIds.map(names).join(', ')} · expires ${campaign.expiresAt ?? 'never'} · ${campaign.id}`,
    })),
  );
}

/** The brand to send: asked only when the campaign has several usable brands. */
export async function pickBrand(prompter: Prompter, campaign: Campaign, me: Me): Promise<string | undefined> {
  if (campaign.brandIds.length <= 1) return undefined;
  const names = brandNames(me.brands);
  return prompter.select(
    `Brand for "${campaign.name}"`,
    campaign.brandIds.map((id) => ({ name: names(id), value: id, description: id })),
  );
}

export function askName(prompter: Prompter): Promise<string> {
  return prompter.input('Player\'s full name', { required: true, validate: lengthRule(LIMITS.linkText) });
}

/** E-mail for order updates after the claim; empty means none. */
export async function askEmail(prompter: Prompter): Promise<string | undefined> {
  const value = await prompter.input('E-mail for order updates (optional)', {
    validate: (text) => text === '' || promptRule(() => validate.email(text, 'e-mail')),
  });
  return value === '' ? undefined : value;
}

export async function askMessage(prompter: Prompter): Promise<string | undefined> {
  const value = await prompter.input('Message on the claim page (optional)', { validate: lengthRule(LIMITS.linkText) });
  return value === '' ? undefined : value;
}

/** One of the account's locales; not asked when the account has only one. */
