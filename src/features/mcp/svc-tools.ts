/**
 * svc's own reads as tools: a record's history (inspect), event counts (events stats), refunds due,
 * doctor and verify-signature. Each computes what its command computes (src/features/) and returns
 * it as data; none moves a cursor, pays or marks a refund.
 */
import * as validate from '../../api/checks.js';
import { UsageError } from '../../core/errors.js';
import { parseSince } from '../../core/time.js';
import { DEFAULT_TOLERANCE_SECONDS, verifySignature } from '../../core/signature.js';
import { diagnose } from '../../core/signature-diagnose.js';
import { runChecks } from '../doctor.js';
import { countEvents, planStats, statsRows } from '../events/stats.js';
import { findRecord, recordHistory } from '../inspect.js';
import { Ledger, ledgerPlace, readRefundCursor } from '../refunds/ledger.js';
import { totalsByCurrency, type Refund } from '../refunds/refund.js';
import { dueRefunds } from '../refunds/source.js';
import { toReport } from '../verify-signature.js';
import { knownSecrets, resolveWebhookSecret } from '../webhook-secret.js';
import { boundedList } from './result.js';
import { componentSchema } from './schema.js';
import { READ_ONLY, objectSchema, text, withNames, type Call, type Tool } from './tool.js';

const SINCE = { type: 'string', description: 'A duration back from now (15m, 2h, 7d) or an ISO 8601 time.' };

async function inspectTool(): Promise<Tool> {
  return {
    name: 'inspect',
    title: 'A link or order and its history',
    description:
      'What happened to one personal link or store order: the record (with brand and campaign names) and every event about it from the feed, oldest first ("did Ada\'s link get claimed?", "why was this order cancelled, and when?"). Takes a link id or an order id. Reads the whole feed (30 days), so it can take a few seconds.',
    schema: objectSchema({ id: await componentSchema('Uuid', 'A personal link id or a store order id.'), since: { ...SINCE, description: `Only events that occurred at or after this. ${SINCE.description}` } }, ['id']),
    write: false,
    hints: READ_ONLY,
    async run(args, call) {
      const id = validate.uuid(text(args, 'id')!, 'id').toLowerCase();
      const sinceMicros = parseSince(text(args, 'since'), Date.now());
      const found = await findRecord(call.client, id, call.signal);
      const events = await recordHistory(call.client, id, sinceMicros, call.signal);
      const record = withNames(found.record, await call.names({ campaigns: found.kind === 'link' }));
      return boundedList('events', events, { kind: found.kind, record }, (shown) =>
        shown < events.length ? `the oldest ${shown} events are shown: call again with since set to the occurredAt of event ${shown + 1} (${String(events[shown]?.occurredAt)}) for the rest` : '',
      );
    },
  };
}

async function statsTool(): Promise<Tool> {
  return {
    name: 'events_stats',
    title: 'Count events by type over time',
    description:
      'How many feed events of each type occurred in each time bucket ("how many cancellations since 19:00?", "did order.cancelled spike at 14:05?"). Returns totals per type and the non-zero counts per bucket (bucketStart is the bucket\'s start, UTC).',
    schema: objectSchema({
      since: { ...SINCE, description: `Count events that occurred at or after this (default 24h). ${SINCE.description}` },
      bucket: { type: 'string', description: 'Width of each bucket: 1m, 5m, 1h, 1d (default 1h).' },
      type: { type: 'array', items: { type: 'string' }, description: 'Only these event types, or prefixes such as order.' },
      brandId: await componentSchema('Uuid', 'Only events of this brand.'),
    }),
    write: false,
    hints: READ_ONLY,
    async run(args, call) {
      const plan = planStats(text(args, 'since'), text(args, 'bucket'), Date.now());
      const types = Array.isArray(args.type) ? (args.type as string[]) : undefined;
      const stats = await countEvents({ client: call.client, plan, types, brandId: text(args, 'brandId'), signal: call.signal });
      const counts = [...statsRows(stats)].flat().filter((row) => row.count > 0);
      const totals = Object.fromEntries(stats.types.map((type) => [type, counts.filter((row) => row.type === type).reduce((sum, row) => sum + row.count, 0)]));
      return boundedList('counts', counts, { since: new Date(plan.sinceMicros / 1000).toISOString(), bucket: plan.bucketLabel, totals }, (shown) => `the first ${shown} buckets are shown: ask for a larger bucket or a later since`);
    },
  };
}

const REFUND_PAGE = 100;

async function refundsTool(): Promise<Tool> {
  return {
    name: 'refunds_due',
    title: 'Cancelled orders not yet refunded',
    description:
      "Cancelled store orders whose coin refund svc's ledger does not hold yet (what `svc refunds run` would pay next), with totals per currency. Read-only: it never pays or marks a refund (that stays in `svc refunds run`). One page per call: pass nextCursor as cursor.",
    schema: objectSchema({
      fromStart: { type: 'boolean', description: 'Read the whole feed, not from the refund cursor (the ledger still holds).' },
      cursor: { type: 'string', description: "The previous page's nextCursor." },
      limit: { type: 'integer', minimum: 1, maximum: REFUND_PAGE, default: 25, description: 'Refunds per page.' },
    }),
    write: false,
    hints: READ_ONLY,
    async run(args, call) {
      const offset = pageOffset(text(args, 'cursor'));
      const limit = typeof args.limit === 'number' ? args.limit : 25;
      const refunds = await allDue(call, args.fromStart === true);
      const page = refunds.slice(offset, offset + limit);
      const nextCursor = offset + limit < refunds.length ? `offset:${offset + limit}` : null;
      return boundedList('refunds', page, { nextCursor, total: refunds.length, totalsByCurrency: totalsByCurrency(refunds) }, (shown) => `call again with the same cursor and limit: ${Math.max(1, shown)}`);
    },
  };
}

function pageOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^offset:(\d{1,9})$/.exec(cursor);
  if (!match) throw new UsageError('cursor: not a cursor refunds_due gave (pass its nextCursor unchanged)');
  return Number(match[1]);
}

async function allDue(call: Call, fromStart: boolean): Promise<Refund[]> {
  const warn = (line: string) => call.ctx.io.info(line);
  const place = await ledgerPlace(call.ctx, undefined);
  const ledger = new Ledger(place.path, warn);
  await ledger.refresh();
  const after = fromStart ? undefined : await readRefundCursor(place, warn);
  const refunds: Refund[] = [];
  for await (const element of dueRefunds({ client: call.client, ledger, after, follow: false, intervalMs: 0, signal: call.signal })) {
    if (element.kind === 'page') refunds.push(...element.refunds);
  }
  return refunds;
}

function doctorTool(): Tool {
  return {
    name: 'doctor',
    title: 'Check the integration',
    description:
      "Why does the integration fail? Checks svc's config, the API key (where it comes from, never the key itself), that the API answers and with which scopes and brands, the clock against the signature tolerance, and the key's webhook URL; each failed check has a fix (hint). With webhook: true it also sends a test delivery to the webhook URL.",
    schema: objectSchema({ webhook: { type: 'boolean', description: "Also send a test delivery to the key's webhook URL (POST /webhooks:test)." } }),
    write: false,
    hints: { ...READ_ONLY, idempotentHint: false },
    async run(args, call) {
      const checks = await runChecks(call.ctx, args.webhook === true);
      return { ok: checks.every((check) => check.ok), checks };
    },
  };
}

function verifyTool(): Tool {
  return {
    name: 'verify_signature',
    title: 'Check a webhook signature',
    description:
      "Checks a Svc-Signature header against a webhook body with the profile's webhook secret (never shown) and explains a failure: wrong secret, changed body, re-serialized JSON, stale timestamp. Pass the body exactly as received.",
    schema: objectSchema(
      {
        header: { type: 'string', description: 'The Svc-Signature header value (t=…,v1=…).' },
        payload: { type: 'string', description: 'The raw request body as received, unchanged.' },
        toleranceSeconds: { type: 'integer', minimum: 0, description: `Allowed clock skew (default ${DEFAULT_TOLERANCE_SECONDS}).` },
        now: { type: 'integer', minimum: 0, description: 'Check as if the time were this (unix seconds).' },
      },
      ['header', 'payload'],
    ),
    write: false,
    hints: { ...READ_ONLY, openWorldHint: false },
    async run(args, call) {
      const now = typeof args.now === 'number' ? args.now : Math.floor(Date.now() / 1000);
      const toleranceSeconds = typeof args.toleranceSeconds === 'number' ? args.toleranceSeconds : DEFAULT_TOLERANCE_SECONDS;
      const { secret, source } = await resolveWebhookSecret(call.ctx, { stdinFlag: false });
      const payload = Buffer.from(text(args, 'payload')!, 'utf8');
      const verification = verifySignature({ header: text(args, 'header')!, payload, secret, now, toleranceSeconds });
      const causes = verification.valid ? [] : diagnose({ verification, payload, secret, otherSecrets: await knownSecrets(call.ctx) });
      return toReport(verification, causes, now, source) as unknown as Record<string, unknown>;
    },
  };
}

export async function svcReadTools(): Promise<Tool[]> {
  return [await inspectTool(), await statsTool(), await refundsTool(), doctorTool(), verifyTool()];
}
