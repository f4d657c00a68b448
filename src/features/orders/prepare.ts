/**
 * The order `orders place` sends, prepared before any confirmation: read from `--from-file` (the
 * API's request body), or built from flags, guided on a TTY through what they leave out (guided.ts).
 */
import { createHash } from 'node:crypto';
import type { ApiClient } from '../../api/client.js';
import { getMe } from '../../api/resources.js';
import type { Me, PlaceOrderRequest } from '../../api/types.js';
import type { Context } from '../../app/context.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { REQUEST_BODY_LIMIT, readFileOrStdin } from '../../core/stdin.js';
import { RequestChecks, parseFieldFlags, promptAnswers, requireAnswers, unansweredRequired } from '../fields.js';
import * as resolve from '../resolve.js';
import { readShown, walk, type Shown } from './guided.js';
import { checkOrder, flagName, parseOrderFile, toRequest, type Draft } from './request.js';

export interface PreparedOrder {
  client: ApiClient;
  body: PlaceOrderRequest;
  shown?: Shown;
  /** GET /me, when it was already read to build the request (names for the views) */
  me?: Me;
  /** the answers the request was built from (flags and prompts), to correct one the service refuses */
  draft?: Draft;
}

/** What the flags give besides the order's values. */
export interface OrderFlags {
  /** --brand as typed: an id, or a name looked up once every other value has passed its checks */
  brand?: string;
  /** --field answers, by id or label */
  field?: string[];
  /** whether the person will be asked to confirm (no --yes) */
  confirming: boolean;
}

/** An order file's idempotency key: running the same file again (after a time-out, say) must not order twice. */
export function fileKey(body: PlaceOrderRequest): string {
  return `svc-order-${createHash('sha256').update(canonicalJson(body)).digest('hex')}`;
}

export async function orderFromFile(ctx: Context, path: string): Promise<PreparedOrder> {
  const text = (await readFileOrStdin(path, ctx.io.streams.stdin, '--from-file', ctx.signal, REQUEST_BODY_LIMIT)).toString('utf8');
  const draft = checkOrder(parseOrderFile(text, path), (field) => `${path === '-' ? 'stdin' : path}: ${field}`, true);
  return { client: await ctx.client(), body: toRequest(draft) };
}

/** What the guided flow cannot do without; when one is missing on a TTY, the walk starts. */
function incomplete(draft: Draft): boolean {
  const { recipient } = draft;
  const { address } = recipient;
  return [draft.storeId, draft.brandId, draft.productId, draft.coinPrice, address.country, recipient.name, recipient.phone, address.street, address.city].some((value) => value === undefined);
}

export async function orderFromFlags(ctx: Context, given: Draft, flags: OrderFlags): Promise<PreparedOrder> {
  const guided = ctx.io.canPrompt() && incomplete(given);
  // Every given value is checked before any request; without a TTY, every required one too.
  const draft = checkOrder(given, flagName, !guided);
  // A brand's name is looked up once every other flag has passed its checks.
  draft.brandId = await resolve.brandId(ctx, flags.brand);
  const client = await ctx.client();
  const me = (await getMe(client, { signal: ctx.signal })).body;
  const localeCheck = new RequestChecks(flagName);
  localeCheck.locale(draft.locale, 'locale', me.tenant.locales);
  localeCheck.throwIfAny();
  const fields = me.tenant.customFields ?? [];
  draft.customFields = parseFieldFlags(flags.field, fields);
  let shown: Shown | undefined;
  if (guided) {
    shown = await walk(ctx.prompter(), client, me, draft, ctx.signal, (line) => ctx.io.info(line));
  } else if (ctx.io.canPrompt()) {
    draft.customFields = await promptAnswers(ctx.prompter(), unansweredRequired(fields, draft.customFields), draft.customFields);
    // The confirmation shows names and the store's currency, not ids: read the store for them.
    if (flags.confirming) shown = await readShown(client, draft, ctx.signal);
  }
  requireAnswers(fields, draft.customFields ?? []);
  return { client, body: toRequest(checkOrder(draft, flagName, true)), shown, me, draft };
}
