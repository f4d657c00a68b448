/**
 * Creating one link for `links create`, from checked flag values: guided on a TTY when the verb says
 * so (guided.ts), else one POST. With every flag given, /me is read only to resolve --field (or to
 * name brands, or ask on a terminal for a required field the service says is missing), and
 * /campaigns only when --brand is missing.
 */
import type { ApiClient } from '../../api/client.js';
import { apiErrorCode } from '../../api/error-codes.js';
import { createPersonalLink, getMe } from '../../api/resources.js';
import type { CreateLinkRequest, Me, PersonalLink } from '../../api/types.js';
import type { Context } from '../../app/context.js';
import { ApiError, UsageError } from '../../core/errors.js';
import type { Prompter } from '../../core/prompter.js';
import { brandNames } from '../choose.js';
import { parseFieldFlags, promptAnswers, requireAnswers, unansweredRequired, withoutUndefined } from '../fields.js';
import { askLink, findActiveCampaign, pickBrand, type LinkFlags } from './guided.js';
import { checkLocale } from './request.js';

/** What the flags give besides the link's values. */
export interface CreateFlags extends LinkFlags {
  idempotencyKey: string;
  /** a missing campaign or name on a TTY: ask for every value (guided.ts) */
  guided: boolean;
}

/** The link made, with what showing it needs; none for --dry-run. */
export interface CreatedLink {
  client: ApiClient;
  link: PersonalLink;
  me?: Me;
}

/** GET /me, read once, and only when something needs it: a prompt, a --field to resolve, brand names. */
interface MeOnce {
  get(): Promise<Me>;
  /** /me when it was read already */
  ifRead(): Promise<Me> | undefined;
}

export async function createLink(ctx: Context, body: Partial<CreateLinkRequest>, flags: CreateFlags): Promise<CreatedLink | undefined> {
  const client = await ctx.client();
  let read: Promise<Me> | undefined;
  const me: MeOnce = { get: () => (read ??= getMe(client, { signal: ctx.signal }).then((response) => response.body)), ifRead: () => read };
  const prompter = ctx.io.canPrompt() ? ctx.prompter() : undefined;
  if (flags.guided && prompter) {
    const account = await me.get();
    return send(ctx, client, await askLink(ctx, prompter, account, body, flags), flags.idempotencyKey, account);
  }
  return fromFlags(ctx, client, body, flags, me, prompter);
}

/** Every flag given: the fields are read only to resolve --field (labels, and each answer's type). */
async function fromFlags(ctx: Context, client: ApiClient, body: Partial<CreateLinkRequest>, flags: CreateFlags, me: MeOnce, prompter: Prompter | undefined): Promise<CreatedLink | undefined> {
  const answered = flags.field !== undefined && flags.field.length > 0;
  if (answered) await answerFieldFlags(body, await me.get(), flags.field, prompter);
  body.brandId ??= await brandWhenNeeded(ctx, client, me, body.campaignId!, prompter);
  const request = withoutUndefined(body) as CreateLinkRequest;
  try {
    return await send(ctx, client, request, flags.idempotencyKey, await me.ifRead());
  } catch (error) {
    // The service names a required custom field left unanswered: on a terminal, ask for it and send again.
    if (!(prompter && !answered && error instanceof ApiError && requiredFieldsMissing(error))) throw error;
    const account = await me.get();
    const answers = await promptAnswers(prompter, unansweredRequired(account.tenant.customFields ?? [], []), []);
    if (answers.length === 0) throw error;
    // A refusal is not stored, so the same Idempotency-Key carries the completed request.
    return send(ctx, client, { ...request, customFields: answers }, flags.idempotencyKey, account);
  }
}

/** --field answers, resolved against the account's fields; on a terminal, required ones left out are asked. */
async function answerFieldFlags(body: Partial<CreateLinkRequest>, me: Me, field: string[] | undefined, prompter: Prompter | undefined): Promise<void> {
  const fields = me.tenant.customFields ?? [];
  checkLocale(body.locale, me);
  const answers = parseFieldFlags(field, fields);
  const missing = unansweredRequired(fields, answers);
  const all = prompter && missing.length > 0 ? await promptAnswers(prompter, missing, answers) : answers;
  requireAnswers(fields, all);
  if (all.length > 0) body.customFields = all;
}

/** A 400 whose errors[] says custom fields are wrong (a required one unanswered, in the spec's words). */
function requiredFieldsMissing(error: ApiError): boolean {
  return error.status === 400 && apiErrorCode(error) === 'invalid_request' && error.fieldErrors.some((entry) => entry.field === 'customFields');
}

/**
 * The API needs brandId when the key can use several of the campaign's brands; say so before
 * sending (or ask, on a terminal). A campaign that is not in the ACTIVE list is left for the service
 * to refuse in its words. /me is read only to name the brands.
 */
async function brandWhenNeeded(ctx: Context, client: ApiClient, me: MeOnce, campaignId: string, prompter: Prompter | undefined): Promise<string | undefined> {
  const campaign = await findActiveCampaign(client, campaignId, ctx.signal);
  if (!campaign || campaign.brandIds.length <= 1) return undefined;
  const account = await me.get();
  if (prompter) return pickBrand(prompter, campaign, account);
  const name = brandNames(account.brands);
  const choices = campaign.brandIds.map((id) => `${id} (${name(id)})`).join(', ');
  throw new UsageError(`--brand: required: campaign "${campaign.name}" has several brands: ${choices}`);
}

/** The POST; a refusal explained in words. --dry-run prints the request instead and makes no link. */
async function send(ctx: Context, client: ApiClient, body: CreateLinkRequest, idempotencyKey: string, me?: Me): Promise<CreatedLink | undefined> {
  try {
    const response = await createPersonalLink(client, body, { idempotencyKey, signal: ctx.signal });
    return response.dryRun ? undefined : { client, link: response.body, me };
  } catch (error) {
    throw error instanceof ApiError ? explainRefusal(error) : error;
  }
}

function explainRefusal(error: ApiError): ApiError {
  switch (apiErrorCode(error)) {
    case 'campaign_not_active':
      return error.explained(`${error.message} (the campaign is not taking links)`, 'pick an ACTIVE campaign: svc campaigns ls');
    case 'campaign_not_found':
      return error.explained(error.message, 'check --campaign and --brand against: svc campaigns ls');
    case 'idempotency_key_reused':
      return error.explained(error.message, 'this --idempotency-key was used for a different link; use a new key');
    default:
      return error;
  }
}
