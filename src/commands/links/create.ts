/**
 * `svc links create`: one link from flags, asking on a TTY for what is missing, or many with
 * `--from-file` (see src/features/bulk/runner.ts). A person sees the claim URL first; a pipe gets the link as one line.
 *
 * On a TTY, a missing campaign or name starts the guided flow, which also offers the optional values
 * (e-mail, message, language, every custom field). When both are given, only what the API cannot do
 * without is asked: the brand of a multi-brand campaign and unanswered required custom fields. The
 * creation itself is src/features/links/create.ts.
 */
import type { CreateLinkRequest } from '../../api/types.js';
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import { UsageError } from '../../core/errors.js';
import { LIMITS, RequestChecks, checkIdempotencyKey } from '../../features/fields.js';
import { createLink, type CreatedLink } from '../../features/links/create.js';
import { linkFlagName } from '../../features/links/request.js';
import * as resolve from '../../features/resolve.js';
import { showLink } from './show.js';
import type { Command } from '@commander-js/extra-typings';
import { collect, dryRunOption, examples } from '../declare.js';
import { API_LIMITS } from '../../api/types.js';

type CreateOptions = OptionsOf<typeof declare>;

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

export async function run(ctx: Context, opts: CreateOptions): Promise<number | void> {
  if (opts.fromFile !== undefined) return createMany(ctx, opts, opts.fromFile);
  const guided = ctx.io.canPrompt() && (opts.campaign === undefined || opts.name === undefined);
  const body = checkFlags({ ...opts, campaign: resolve.checkedLater(opts.campaign), brand: resolve.checkedLater(opts.brand) }, !guided);
  // Names (a campaign's, a brand's) are looked up once every other flag has passed its checks.
  body.campaignId = await resolve.campaignId(ctx, opts.campaign);
  body.brandId = await resolve.brandId(ctx, opts.brand);
  const idempotencyKey = checkIdempotencyKey(opts.idempotencyKey);
  if (opts.concurrency !== undefined) throw new UsageError('--concurrency: only with --from-file');
  const flags = { idempotencyKey, guided, email: opts.email, message: opts.message, locale: opts.locale, field: opts.field };
  const created = await createLink(ctx, body, flags);
  // --dry-run: the request was printed instead of sent; there is no link to show.
  if (created) await show(ctx, created);
}

/** Bulk: every value comes from the file (src/features/bulk/runner.ts). */
async function createMany(ctx: Context, opts: CreateOptions, fromFile: string): Promise<number> {
  const conflicting = SINGLE_LINK_FLAGS.filter(([key]) => opts[key] !== undefined).map(([, flag]) => flag);
  if (opts.field?.length) conflicting.push('--field');
  if (conflicting.length > 0) throw new UsageError(`--from-file: every value comes from the file; remove ${conflicting.join(', ')}`);
  const { runBulk } = await import('../../features/bulk/runner.js');
  return runBulk(ctx, { fromFile, concurrency: opts.concurrency });
}

/** Checks every flag before any request; `strict` also requires what the guided flow would ask. */
function checkFlags(opts: CreateOptions, strict: boolean): Partial<CreateLinkRequest> {
  const checks = new RequestChecks(linkFlagName);
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

/** A person sees the claim URL first (and a link waiting for approval says so); a pipe gets the link as one line. */
async function show(ctx: Context, { client, link, me }: CreatedLink): Promise<void> {
  const output = await ctx.output();
  if (ctx.format === 'table' && link.status === 'REQUESTED') {
    ctx.io.info(output.chalk.yellow('The link waits for your team\'s approval before the player can claim it.'));
  }
  await showLink(output, client, ctx.signal, link, me);
}
