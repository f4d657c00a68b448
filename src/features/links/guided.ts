/**
 * The guided `links create` on a TTY, and its questions: one function per value, each asked only
 * when missing, then one confirmation of what will be sent.
 */
import type { ApiClient } from '../../api/client.js';
import { pagesOf } from '../../api/paginate.js';
import { listCampaigns } from '../../api/resources.js';
import { API_LIMITS, type Campaign, type CreateLinkRequest, type Me } from '../../api/types.js';
import type { Context } from '../../app/context.js';
import { DeclinedError, FailureError } from '../../core/errors.js';
import type { Prompter } from '../../core/prompter.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import * as validate from '../../api/checks.js';
import { brandNames, chooseLocale } from '../choose.js';
import { LIMITS, lengthRule, parseFieldFlags, promptAnswers, promptRule, withoutUndefined } from '../fields.js';
import { checkLocale } from './request.js';

/** What the guided flow asks for only when its flag was not given. */
export interface LinkFlags {
  email?: string;
  message?: string;
  locale?: string;
  /** --field answers, by id or label */
  field?: string[];
}

/**
 * Campaign (searched), brand when the campaign has several, name, the optional values and every
 * custom field, then the confirmation; returns the request to send.
 */
export async function askLink(ctx: Context, prompter: Prompter, me: Me, body: Partial<CreateLinkRequest>, given: LinkFlags): Promise<CreateLinkRequest> {
  const client = await ctx.client();
  const fields = me.tenant.customFields ?? [];
  checkLocale(body.locale, me);
  let answers = parseFieldFlags(given.field, fields);
  const campaign = body.campaignId ? await findActiveCampaign(client, body.campaignId, ctx.signal) : await pickCampaign(prompter, client, me, ctx.signal);
  if (campaign) {
    body.campaignId = campaign.id;
    body.brandId ??= await pickBrand(prompter, campaign, me);
  }
  body.fullName ??= await askName(prompter);
  if (given.email === undefined) body.email = await askEmail(prompter);
  if (given.message === undefined) body.message = await askMessage(prompter);
  if (given.locale === undefined) body.locale = await chooseLocale(prompter, 'Language of the claim page', me.tenant.locales ?? []);
  answers = await promptAnswers(prompter, fields, answers);
  if (answers.length > 0) body.customFields = answers;
  // Both required members are set by now: checked as flags, or asked for in the guided flow.
  const request = withoutUndefined(body) as CreateLinkRequest;
  await confirmLink(ctx, prompter, request, campaign?.name, me);
  return request;
}

/** Every ACTIVE campaign the key can use (the default status of GET /campaigns), streamed page by page. */
async function* activeCampaigns(client: ApiClient, signal: AbortSignal): AsyncGenerator<Campaign> {
  for await (const page of pagesOf(client, listCampaigns, { all: true, limit: API_LIMITS.pageSizeMax, signal })) yield* page.items;
}

/** The ACTIVE campaign with this id, or undefined when the key cannot use it or it is not active. */
export async function findActiveCampaign(client: ApiClient, id: string, signal: AbortSignal): Promise<Campaign | undefined> {
  for await (const campaign of activeCampaigns(client, signal)) if (campaign.id === id) return campaign;
  return undefined;
}

async function pickCampaign(prompter: Prompter, client: ApiClient, me: Me, signal: AbortSignal): Promise<Campaign> {
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

function askName(prompter: Prompter): Promise<string> {
  return prompter.input('Player\'s full name', { required: true, validate: lengthRule(LIMITS.linkText) });
}

/** E-mail for order updates after the claim; empty means none. */
async function askEmail(prompter: Prompter): Promise<string | undefined> {
  const value = await prompter.input('E-mail for order updates (optional)', {
    validate: (text) => text === '' || promptRule(() => validate.email(text, 'e-mail')),
  });
  return value === '' ? undefined : value;
}

async function askMessage(prompter: Prompter): Promise<string | undefined> {
  const value = await prompter.input('Message on the claim page (optional)', { validate: lengthRule(LIMITS.linkText) });
  return value === '' ? undefined : value;
}

/** The guided flow's one confirmation: what will be sent, by name, then yes/no (on stderr). */
async function confirmLink(ctx: Context, prompter: Prompter, body: CreateLinkRequest, campaignName: string | undefined, me: Me): Promise<void> {
  const { chalk } = await ctx.output();
  const brand = me.brands?.find((candidate) => candidate.id === body.brandId)?.name;
  const label = new Map((me.tenant.customFields ?? []).map((field) => [field.id, field.label]));
  const rows: [string, string | undefined][] = [
    ['Campaign', campaignName ? `${campaignName} (${body.campaignId})` : body.campaignId],
    ['Brand', body.brandId ? (brand ? `${brand} (${body.brandId})` : body.brandId) : undefined],
    ['Player', body.fullName],
    ['E-mail', body.email],
    ['Message', body.message],
    ['Language', body.locale],
    ...(body.customFields ?? []).map((answer): [string, string] => [
      label.get(answer.fieldId) ?? answer.fieldId,
      'checked' in answer && answer.checked !== undefined ? (answer.checked ? 'yes' : 'no') : String((answer as { textValue?: string }).textValue ?? ''),
    ]),
  ];
  const shown = rows.filter((row): row is [string, string] => row[1] !== undefined && row[1] !== '');
  const width = Math.max(...shown.map(([name]) => terminalSafeLine(name).length)) + 1;
  for (const [name, value] of shown) ctx.io.info(`${chalk.bold(`${terminalSafeLine(name)}:`.padEnd(width + 1))} ${terminalSafeLine(value)}`);
  if (!(await prompter.confirm('Create this link?', true))) throw new DeclinedError('Link not created (you declined); nothing was sent.');
}
