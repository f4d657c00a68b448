/**
 * `svc trigger TYPE [--link ID] [--order ID]` (sandbox only): makes the sandbox produce an event of
 * TYPE, creating what it needs when no id is given, then prints the events it caused (read from
 * this key's feed after the cursor taken before acting) as `events tail` renders them (-o honoured).
 * For `ping`, the delivery of the ping POST /webhooks:test sent, from the sandbox's delivery list.
 * The moves behind each type are in src/features/trigger.ts.
 */
import type { ApiClient } from '../api/client.js';
import { getMe, testWebhook } from '../api/resources.js';
import { API_LIMITS, EVENT_TYPES, type EventType, type Me } from '../api/types.js';
import type { Context } from '../app/context.js';
import type { ArgsOf, OptionsOf } from '../app/verb.js';
import { ExitCode, FailureError, SvcError, UsageError } from '../core/errors.js';
import { terminalSafeLine } from '../core/sanitize.js';
import * as validate from '../api/checks.js';
import * as resolve from '../features/resolve.js';
import { feed, type FeedEvent } from '../features/events/feed.js';
import type { DeliveryRecord as Delivery } from '../api/delivery-record.js';
import { SandboxAdmin } from '../features/sandbox-admin.js';
import { jsonText } from '../core/sanitize.js';
import { defaultColumns } from '../api/resource-fields.js';
import { EventRenderer } from '../features/events/render.js';
import { namesFor } from '../app/names.js';
import type { Command } from '@commander-js/extra-typings';
import { examples } from './declare.js';
import { Trigger } from '../features/trigger.js';

export function declare(command: Command) {
  return command
    .argument('<type>', 'event type: personal_link.created|approved|claimed|cancelled|expired, order.approved|cancelled|sent|completed, ping')
    .description('sandbox only: make the sandbox produce an event of TYPE and print the events it caused')
    .option('--link <id>', 'act on this link instead of creating one')
    .option('--order <id|reference>', 'act on this order (placed by this key; id or reference) instead of placing one')
    .addHelpText('after', examples('svc --profile sandbox trigger order.cancelled', 'svc trigger personal_link.approved', 'svc trigger order.sent --order <id>', 'svc trigger ping'));
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>, args: ArgsOf<typeof declare>): Promise<number | void> {
  const type = args[0];
  if (!(EVENT_TYPES as readonly string[]).includes(type)) {
    throw new UsageError(`TYPE: unknown event type ${terminalSafeLine(type)}; one of ${EVENT_TYPES.join(', ')}`);
  }
  const eventType = type as EventType;
  const linkId = validate.optionalUuid(opts.link, '--link');
  if (opts.order !== undefined && !eventType.startsWith('order.')) throw new UsageError(`--order: only for order.* types, not ${eventType}`);
  const orderId = await resolve.optionalOrderId(ctx, opts.order);
  if (linkId !== undefined && !eventType.startsWith('personal_link.')) throw new UsageError(`--link: only for personal_link.* types, not ${eventType}`);
  if (linkId !== undefined && eventType === 'personal_link.created') throw new UsageError('--link: personal_link.created always makes a new link');

  const profile = await ctx.profile();
  const admin = await SandboxAdmin.open(profile.baseUrl, ctx.signal);
  try {
    const client = await ctx.client();
    const me = (await getMe(client, { signal: ctx.signal })).body;
    if (eventType === 'ping') return await ping(ctx, client, admin, me);
    const scope = eventType.startsWith('order.') ? 'REWARD_STORES' : 'PERSONAL_LINKS';
    if (!me.key.scopes.includes(scope)) {
      throw new SvcError(`the key ${terminalSafeLine(me.key.name)} lacks ${scope}: its feed never shows ${eventType}`, ExitCode.auth, 'insufficient_scope', 'use a key with that scope, e.g. the sandbox key "full"');
    }
    const before = await feedEnd(client, ctx.signal);
    const touched = new Set<string>();
    const trigger = new Trigger(ctx, client, admin, me, touched);
    await trigger.produce(eventType, linkId, orderId);
    const caused = await eventsAfter(client, before, touched, ctx.signal);
    // Rendered as events tail renders the feed: a line per event for a person, each event as the feed sent it in a pipe.
    const output = await ctx.output();
    const renderer = new EventRenderer(output, { csvColumns: defaultColumns('event') });
    if (output.format === 'table') renderer.names = await namesFor(client, ctx.signal, { campaigns: true });
    await renderer.begin();
    try {
      for (const item of caused) await renderer.event(item.raw, item.event);
    } finally {
      await renderer.end();
    }
    if (!caused.some((item) => item.event?.type === eventType)) {
      throw new FailureError(`the sandbox recorded no ${eventType} event in this key's feed`, 'not_triggered');
    }
  } finally {
    await admin.close();
  }
}

/** The cursor at the end of the key's feed now (null when the feed is empty). */
async function feedEnd(client: ApiClient, signal: AbortSignal): Promise<string | undefined> {
  let cursor: string | undefined;
  for await (const element of feed({ client, limit: API_LIMITS.pageSizeMax, follow: false, intervalMs: 0, signal })) {
    if (element.kind !== 'status' && element.cursor !== null) cursor = element.cursor;
  }
  return cursor;
}

/** The events after `after` about the records this trigger touched, in feed order. */
async function eventsAfter(client: ApiClient, after: string | undefined, touched: Set<string>, signal: AbortSignal): Promise<FeedEvent[]> {
  const caused: FeedEvent[] = [];
  for await (const element of feed({ client, after, limit: API_LIMITS.pageSizeMax, follow: false, intervalMs: 0, signal })) {
    if (element.kind !== 'page') continue;
    for (const item of element.events) {
      const id = (item.event?.data as { id?: unknown } | undefined)?.id;
      if (typeof id === 'string' && touched.has(id)) caused.push(item);
    }
  }
  return caused;
}

/** `ping`: POST /webhooks:test, then the delivery it made, from the sandbox's delivery list. */
async function ping(ctx: Context, client: ApiClient, admin: SandboxAdmin, me: Me): Promise<number> {
  const name = terminalSafeLine(me.key.name);
  if (!me.key.webhookUrl) {
    throw new FailureError(
      `the key ${name} has no webhook URL, so a ping has nowhere to go; nothing was sent`,
      'no_webhook_url',
      // The key's URL is the team's to set (the workspace); against the sandbox, listen sets it for as long as it runs.
      `run 'svc webhooks listen' in another terminal (against the sandbox it sets this key's webhook URL to itself while it runs), then 'svc trigger ping' again; or set the URL in the workspace: ${admin.adminUrl}/`,
    );
  }
  const seen = (await admin.call<{ items: Delivery[] }>('GET', '/deliveries')).items.length;
  const result = (await testWebhook(client, { retry: false, signal: ctx.signal })).body;
  const delivered = (await admin.call<{ items: Delivery[] }>('GET', '/deliveries')).items.slice(seen).filter((d) => d.type === 'ping' && d.keyName === me.key.name);
  for (const delivery of delivered) await ctx.io.write(`${jsonText(delivery, undefined, ctx.io.stdoutIsTTY)}\n`);
  const status = result?.responseStatus;
  if (typeof status === 'number' && status >= 200 && status < 300) return ExitCode.ok;
  throw new FailureError(`the ping was not accepted: ${terminalSafeLine(result?.error ?? `receiver answered ${status}`)}`, 'webhook_test_failed');
}
