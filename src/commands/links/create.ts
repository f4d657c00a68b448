/**
 * `svc links create`: one link from flags, asking on a TTY for what is missing, or many with
 * `--from-file` (see src/features/bulk/runner.ts). A person sees the claim URL first; a pipe gets the link as one line.
 *
 * On a TTY, a missing campaign or name starts the guided flow, which also offers the optional values
 * (e-mail, message, language, every custom field). When both are given, only what the API cannot do
 * without is asked: the brand of a multi-brand campaign and unanswered required custom fields.
 *
 * With every flag given the create is one request, the POST: /me is read only to resolve --field (or
 * to name brands, or ask on a terminal for a required field the service says is missing), and
 * /campaigns only when --brand is missing.
 */
import type { ApiClient, ApiResponse } from '../../api/client.js';
import { createPersonalLink, getMe } from '../../api/resources.js';
import { apiErrorCode } from '../../api/error-codes.js';
import type { CreateLinkRequest, Me, PersonalLink, TenantCustomField } from '../../api/types.js';
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import type { Prompter } from '../../core/prompter.js';
import { ApiError, FailureError, UsageError } from '../../core/errors.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import {
  LIMITS,
  RequestChecks,
  checkIdempotencyKey,
  parseFieldFlags,
  promptAnswers,
  requireAnswers,
  unansweredRequired,
  withoutUndefined,
} from '../../features/fields.js';
import * as resolve from '../../features/resolve.js';
import { brandNames, chooseLocale } from '../../features/choose.js';
import { askEmail, askMessage, askName, findActiveCampaign, pickBrand, pickCampaign } from './prompt.js';
import { showLink } from './show.js';
import type { Command } from '@commander-js/extra-typings';
import { collect, dryRunOption, examples } from '../declare.js';
import { API_LIMITS } from '../../api/types.js';

export type CreateOptions = OptionsOf<typeof declare>;

/** The flag that sets each body field, so client-side checks name what the user typed. */
const FLAGS: Record<string, string> = {
  campaignId: '--campaign',
  fullName: '--name',
  brandId: '--brand',
  email: '--email',
  message: '--message',
  locale: '--locale',
};

/** Flags that would set one link's values; in bulk every value comes from the file. */
const SINGLE_LINK_FLAGS: [keyof CreateOptions, string][] = [
  ['campaign', '--campaign'],
  ['name', '--name'],
  ['brand', '--brand'],
  ['email', '--email'],
  ['message', '--message'],
  ['locale', '--locale'],
  ['idempotencyKey', '--idempotency-key'],
];

export function declare(command: Command) {
  return command
    .description('create a personal link for one player, or many with --from-file (POST /personal-links)')
    .option('--campaign <id|name>', 'an ACTIVE campaign, by id or name')
    .option('--name <name>', `player's full name (max ${API_LIMITS.linkFullName})`)
    .option('--brand <id|name>', 'brand id or name, needed when the campaign has several usable brands')
    .option('--email <email>', `player's e-mail (max ${API_LIMITS.linkEmail})`)
    .option('--message <text>', `note shown on the claim page (max ${API_LIMITS.linkMessage})`)
    .option('--locale <locale>', "language, one of the account's locales (default en-US)")
    .option('--field <field=value>', 'custom field answer by id or label; CHECKBOX takes true/false (repeatable)', collect)
    .option('--idempotency-key <key>', 'reuse a key to retry safely (default: a fresh UUID)')
    .option('--from-file <file>', 'bulk: CSV with a header row or JSON lines; - reads stdin')
    .option('--concurrency <n>', 'bulk: requests in flight at once (default 8)')
    .addOption(dryRunOption())
    .addHelpText(
      'after',
      examples(
        'svc links create                                   # asks for what is missing on a TTY',
        'svc links create --campaign <id> --name "Ada Lovelace" --field "VIP tier=Gold" --field "Marketing consent=true"',
        'svc links create --from-file players.csv > results.jsonl',
        'cat players.jsonl | svc links create --from-file -',
        'svc links create --campaign <id> --name "Ada Lovelace" --dry-run   # prints the POST, sends nothing',
        'svc links create --from-file players.csv --dry-run',
      ),
    );
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<number | void> {
  if (opts.fromFile !== undefined) {
    const conflicting = SINGLE_LINK_FLAGS.filter(([key]) => opts[key] !== undefined).map(([, flag]) => flag);
    if (opts.field?.length) conflicting.push('--field');
    if (conflicting.length > 0) throw new UsageError(`--from-file: every value comes from the file; remove ${conflicting.join(', ')}`);
    const { runBulk } = await import('../../features/bulk/runner.js');
    return runBulk(ctx, { fromFile: opts.fromFile, concurrency: opts.concurrency });
  }
  const guided = ctx.io.canPrompt() && (opts.campaign === undefined || opts.name === undefined);
  const body = checkFlags({ ...opts, campaign: resolve.checkedLater(opts.campaign), brand: resolve.checkedLater(opts.brand) }, !guided);
  // Names (a campaign's, a brand's) are looked up once every other flag has passed its checks.
  body.campaignId = await resolve.campaignId(ctx, opts.campaign);
  body.brandId = await resolve.brandId(ctx, opts.brand);
  const idempotencyKey = checkIdempotencyKey(opts.idempotencyKey);
  if (opts.concurrency !== undefined) throw new UsageError('--concurrency: only with --from-file');

  const client = await ctx.client();
  // GET /me is read once, and only when something needs it: a prompt, a --field to resolve, brand names.
  let meRead: Promise<Me> | undefined;
  const readMe = (): Promise<Me> => (meRead ??= getMe(client, { signal: ctx.signal }).then((response) => response.body));
  const prompter = ctx.io.canPrompt() ? ctx.prompter() : undefined;

  if (guided && prompter) {
    const me = await readMe();
    const fields = me.tenant.customFields ?? [];
    checkLocale(body.locale, me);
    let answers = parseFieldFlags(opts.field, fields);
    const campaign = body.campaignId ? await findActiveCampaign(client, body.campaignId, ctx.signal) : await pickCampaign(prompter, client, me, ctx.signal);
    if (campaign) {
      body.campaignId = campaign.id;
      body.brandId ??= await pickBrand(prompter, campaign, me);
    }
    body.fullName ??= await askName(prompter);
    if (opts.email === undefined) body.email = await askEmail(prompter);
    if (opts.message === undefined) body.message = await askMessage(prompter);
    if (opts.locale === undefined) body.locale = await chooseLocale(prompter, 'Language of the claim page', me.tenant.locales ?? []);
    answers = await promptAnswers(prompter, fields, answers);
    if (answers.length > 0) body.customFields = answers;
    // Both required members are set by now: checked as flags, or asked for in the guided flow.
    const request = withoutUndefined(body) as CreateLinkRequest;
    await confirmLink(ctx, prompter, request, campaign?.name, me);
    await create(ctx, client, request, idempotencyKey, me);
    return;
  }

  // Every flag given: the fields are read only to resolve --field (labels, and each answer's type).
  let fields: readonly TenantCustomField[] | undefined;
  if (opts.field !== undefined && opts.field.length > 0) {
    const me = await readMe();
    fields = me.tenant.customFields ?? [];
    checkLocale(body.locale, me);
    const answers = parseFieldFlags(opts.field, fields);
    const missing = unansweredRequired(fields, answers);
    const all = prompter && missing.length > 0 ? await promptAnswers(prompter, missing, answers) : answers;
    requireAnswers(fields, all);
    if (all.length > 0) body.customFields = all;
  }
  body.brandId ??= await brandWhenNeeded(ctx, client, readMe, body.campaignId!, prompter);
  const request = withoutUndefined(body) as CreateLinkRequest;
  try {
    await create(ctx, client, request, idempotencyKey, meRead ? await meRead : undefined);
  } catch (error) {
    // The service names a required custom field left unanswered: on a terminal, ask for it and send again.
    if (!(prompter && fields === undefined && error instanceof ApiError && requiredFieldsMissing(error))) throw error;
    const me = await readMe();
    const accountFields = me.tenant.customFields ?? [];
    const answers = await promptAnswers(prompter, unansweredRequired(accountFields, []), []);
    if (answers.length === 0) throw error;
    // A refusal is not stored, so the same Idempotency-Key carries the completed request.
    await create(ctx, client, { ...request, customFields: answers }, idempotencyKey, me);
  }
}

/** A locale the account has not enabled, refused before sending once /me has been read for another reason. */
function checkLocale(locale: string | undefined, me: Me): void {
  const checks = new RequestChecks((field) => FLAGS[field] ?? field);
  checks.locale(locale, 'locale', me.tenant.locales);
  checks.throwIfAny();
}

/** A 400 whose errors[] says custom fields are wrong (a required one unanswered, in the spec's words). */
function requiredFieldsMissing(error: ApiError): boolean {
  return error.status === 400 && apiErrorCode(error) === 'invalid_request' && error.fieldErrors.some((entry) => entry.field === 'customFields');
}

/** Checks every flag before any request; `strict` also requires what the guided flow would ask. */
function checkFlags(opts: CreateOptions, strict: boolean): Partial<CreateLinkRequest> {
  const checks = new RequestChecks((field) => FLAGS[field] ?? field);
  const body: Partial<CreateLinkRequest> = {
    campaignId: checks.uuid(opts.campaign, 'campaignId', strict),
    fullName: strict ? checks.requiredText(opts.name, 'fullName', LIMITS.linkText) : checks.text(opts.name, 'fullName', LIMITS.linkText),
    brandId: checks.uuid(opts.brand, 'brandId', false),
    email: checks.email(opts.email, 'email'),
    message: checks.text(opts.message, 'message', LIMITS.linkText),
    locale: checks.locale(opts.locale, 'locale'),
  };
  checks.throwIfAny();
  return body;
}

/**
 * The API needs brandId when the key can use several of the campaign's brands; say so before
 * sending (or ask, on a terminal). A campaign that is not in the ACTIVE list is left for the service
 * to refuse in its words. /me is read only to name the brands.
 */
async function brandWhenNeeded(ctx: Context, client: ApiClient, readMe: () => Promise<Me>, campaignId: string, prompter: Prompter | undefined): Promise<string | undefined> {
  const campaign = await findActiveCampaign(client, campaignId, ctx.signal);
  if (!campaign || campaign.brandIds.length <= 1) return undefined;
  const me = await readMe();
  if (prompter) return pickBrand(prompter, campaign, me);
  const name = brandNames(me.brands);
  const choices = campaign.brandIds.map((id) => `${id} (${name(id)})`).join(', ');
  throw new UsageError(`--brand: required: campaign "${campaign.name}" has several brands: ${choices}`);
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
  if (!(await prompter.confirm('Create this link?', true))) throw new FailureError('link not created: you declined', 'declined');
}

async function create(ctx: Context, client: ApiClient, body: CreateLinkRequest, idempotencyKey: string, me?: Me): Promise<void> {
  let response: ApiResponse<PersonalLink>;
  try {
    response = await createPersonalLink(client, body, { idempotencyKey, signal: ctx.signal });
  } catch (error) {
    throw error instanceof ApiError ? explainRefusal(error) : error;
  }
  // --dry-run: the request was printed instead of sent; there is no link to show.
  if (response.dryRun) return;
  const link = response.body;
  const output = await ctx.output();
  if (ctx.format === 'table' && link.status === 'REQUESTED') {
    ctx.io.info(output.chalk.yellow('The link waits for your team\'s approval before the player can claim it.'));
  }
  await showLink(output, client, ctx.signal, link, me);
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
