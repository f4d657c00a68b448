/**
 * `svc trigger TYPE [--link ID] [--order ID]` (sandbox only): makes the sandbox produce an event of
 * TYPE, creating what it needs when no id is given, then prints the events it caused (read from
 * this key's feed after the cursor taken before acting) as JSON lines. For `ping`, the delivery of
 * the ping POST /webhooks:test sent, from the sandbox's delivery list.
 *
 * Links are made and moved by "the team" (the admin API), so the key receives their webhooks;
 * orders are placed by this key (only the placing key ever sees an order) and moved by the team.
 * Records are made under the account's settings; a flow that needs a REQUESTED record switches
 * approvalRequired on for that one creation and back. Moves needed on the way are made too (a
 * REQUESTED link is approved before it is claimed; an order is approved, shipped, delivered).
 */
import type { ApiClient } from '../api/client.js';
import { getMe, getPersonalLink, getRewardStore, getRewardStoreOrder, listRewardStores, placeRewardStoreOrder, testWebhook } from '../api/resources.js';
import { API_LIMITS, EVENT_TYPES, type CountryCode, type EventType, type Me, type PersonalLink, type RewardStoreOrder } from '../api/types.js';
import type { Context } from '../app/context.js';
import type { ArgsOf, OptionsOf } from '../app/verb.js';
import { ApiError, ExitCode, FailureError, SvcError, UsageError } from '../core/errors.js';
import { terminalSafeLine } from '../core/sanitize.js';
import * as validate from '../api/checks.js';
import * as resolve from '../features/resolve.js';
import { feed, type FeedEvent } from '../features/events/feed.js';
import type { DeliveryRecord as Delivery } from '../api/delivery-record.js';
import { SandboxAdmin } from '../features/sandbox-admin.js';
import { escapeJson, jsonText } from '../core/sanitize.js';
import type { Command } from '@commander-js/extra-typings';
import { examples } from './declare.js';

interface Settings {
  approvalRequired: boolean;
}

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
    // As the feed sent them; on a terminal with C1 and bidi controls escaped (the same JSON value).
    for (const item of caused) await ctx.io.write(`${ctx.io.stdoutIsTTY ? escapeJson(item.raw, true) : item.raw}\n`);
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
      `run 'svc webhooks listen --port 4242' and set the URL: curl -X PATCH ${admin.adminUrl}/keys/${encodeURIComponent(me.key.name)} -H 'content-type: application/json' -d '{"webhookUrl":"http://127.0.0.1:4242/webhooks"}'`,
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

const PLAYER = 'Triggered Player';

/** The moves behind each event type; every record it makes or moves is added to `touched`. */
class Trigger {
  private brandIds: string[];

  constructor(
    private readonly ctx: Context,
    private readonly client: ApiClient,
    private readonly admin: SandboxAdmin,
    private readonly me: Me,
    private readonly touched: Set<string>,
  ) {
    this.brandIds = me.brands.map((brand) => brand.id);
    if (this.brandIds.length === 0) throw new FailureError(`the key ${terminalSafeLine(me.key.name)} can use no brand`, 'no_brand');
  }

  async produce(type: Exclude<EventType, 'ping'>, linkId: string | undefined, orderId: string | undefined): Promise<void> {
    switch (type) {
      case 'personal_link.created':
        await this.newLink();
        return;
      case 'personal_link.approved': {
        const link = linkId ? await this.link(linkId) : await this.newLink({ requested: true });
        await this.linkMove(link.id, 'approve');
        return;
      }
      case 'personal_link.claimed': {
        const link = linkId ? await this.link(linkId) : await this.newLink();
        if (link.status === 'REQUESTED') await this.linkMove(link.id, 'approve');
        await this.linkMove(link.id, 'claim');
        return;
      }
      case 'personal_link.cancelled': {
        const link = linkId ? await this.link(linkId) : await this.newLink();
        await this.linkMove(link.id, 'cancel');
        return;
      }
      case 'personal_link.expired':
        await this.expire(linkId);
        return;
      default:
        await this.orderEvent(type, orderId);
    }
  }

  // ---- links ----

  private async link(id: string): Promise<PersonalLink> {
    const link = (await getPersonalLink(this.client, id, { signal: this.ctx.signal })).body;
    this.touched.add(link.id);
    return link;
  }

  /** A link made by the team, under the account's settings; `requested` switches approval on for it. */
  private async newLink(options: { requested?: boolean; campaignId?: string } = {}): Promise<PersonalLink> {
    const body = { brandId: this.brandIds[0], fullName: PLAYER, ...(options.campaignId ? { campaignId: options.campaignId } : {}), customFields: this.requiredAnswers() };
    const create = () => this.admin.call<PersonalLink>('POST', '/links', body);
    const link = options.requested ? await this.withApprovalRequired(create) : await create();
    this.touched.add(link.id);
    return link;
  }

  private async linkMove(id: string, move: 'approve' | 'claim' | 'cancel'): Promise<void> {
    const answer = await this.admin.call<{ order?: { id?: string } }>('POST', `/links/${id}/${move}`, {});
    if (move === 'claim' && typeof answer?.order?.id === 'string') this.touched.add(answer.order.id);
  }

  /**
   * A link expires with its campaign. Without --link: a campaign of its own, one link in it, then
   * the campaign ends. With --link: its campaign ends (its other open links expire too) and is reopened.
   */
  private async expire(linkId: string | undefined): Promise<void> {
    if (linkId !== undefined) {
      const link = await this.link(linkId);
      if (link.campaignId === null) throw new FailureError(`link ${linkId} was sent from the catalog, without a campaign: it cannot expire`, 'not_expirable');
      this.ctx.io.info(`note: ending campaign ${terminalSafeLine(link.campaignId)} expires every open link of it; it is reopened afterwards`);
      await this.admin.call('POST', `/campaigns/${link.campaignId}/complete`, {});
      await this.admin.call('POST', `/campaigns/${link.campaignId}/reopen`, {});
      return;
    }
    const campaign = await this.admin.call<{ id: string }>('POST', '/campaigns', { name: 'Triggered Expiry', brandIds: [this.brandIds[0]] });
    await this.newLink({ campaignId: campaign.id });
    await this.admin.call('POST', `/campaigns/${campaign.id}/complete`, {});
  }

  // ---- orders ----

  private async orderEvent(type: 'order.approved' | 'order.cancelled' | 'order.sent' | 'order.completed', orderId: string | undefined): Promise<void> {
    let order: RewardStoreOrder;
    if (orderId !== undefined) {
      order = (await getRewardStoreOrder(this.client, orderId, { signal: this.ctx.signal })).body;
    } else {
      order = await this.placeOrder(type === 'order.approved');
    }
    this.touched.add(order.id);
    if (type === 'order.cancelled') {
      await this.orderMove(order.id, 'cancel');
      return;
    }
    // Walk the order forward to the move that makes the event: approve → ship → deliver.
    const path: Record<string, { from: string; move: string; event: string }[]> = {
      'order.approved': [{ from: 'REQUESTED', move: 'approve', event: 'order.approved' }],
      'order.sent': [
        { from: 'REQUESTED', move: 'approve', event: 'order.approved' },
        { from: 'PROCESSING', move: 'ship', event: 'order.sent' },
      ],
      'order.completed': [
        { from: 'REQUESTED', move: 'approve', event: 'order.approved' },
        { from: 'PROCESSING', move: 'ship', event: 'order.sent' },
        { from: 'SENT', move: 'deliver', event: 'order.completed' },
      ],
    };
    const steps = path[type];
    let status: string = order.status;
    const start = steps.findIndex((step) => step.from === status);
    // A status the walk cannot start from: try the last move, and let the sandbox say why not.
    for (const step of start < 0 ? steps.slice(-1) : steps.slice(start)) {
      status = (await this.orderMove(order.id, step.move)).status;
    }
  }

  private orderMove(id: string, move: string): Promise<RewardStoreOrder> {
    return this.admin.call<RewardStoreOrder>('POST', `/orders/${id}/${move}`, {});
  }

  /** An order placed by this key for the first gift it can order in a LIVE store; REQUESTED if asked, else as the account's settings make it. */
  private async placeOrder(requested: boolean): Promise<RewardStoreOrder> {
    const signal = this.ctx.signal;
    const stores = (await listRewardStores(this.client, { limit: API_LIMITS.pageSizeMax }, { signal })).body;
    const gifts = await this.admin.call<{ items: { storeId: string; countries?: CountryCode[] }[] }>('GET', '/gifts');
    for (const store of stores.items.filter((s) => s.phase === 'LIVE')) {
      const countries = [...new Set<CountryCode>(['DE', ...gifts.items.filter((g) => g.storeId === store.id).flatMap((g) => g.countries ?? [])])];
      for (const brandId of store.brandIds.filter((id) => this.brandIds.includes(id))) {
        for (const country of countries) {
          const read = (await getRewardStore(this.client, store.id, { brandId, country, locale: 'en-US' }, { signal })).body;
          const items = read.sections.flatMap((section) => section.items);
          // Gifts without options first: they are never sold out.
          const ordered = [...items.filter((g) => g.dimensions.length === 0), ...items.filter((g) => g.dimensions.length > 0 && g.combinations.length > 0)];
          for (const gift of ordered) {
            const body = {
              storeId: store.id,
              brandId,
              productId: gift.productId,
              variations: gift.dimensions.length === 0 ? {} : gift.combinations[0].variations,
              coinPrice: gift.coinPrice,
              recipient: { name: PLAYER, phone: '+4915112345678', address: { street: 'Teststrasse 1', city: 'Berlin', postalCode: '10115', country } },
              customFields: this.requiredAnswers(),
            };
            try {
              const place = () => placeRewardStoreOrder(this.client, body, { idempotencyKey: crypto.randomUUID(), signal });
              return (requested ? await this.withApprovalRequired(place) : await place()).body;
            } catch (error) {
              // Sold out, price moved, not orderable here: try the next gift.
              if (!(error instanceof ApiError) || error.status >= 500 || error.status === 401 || error.status === 403) throw error;
            }
          }
        }
      }
    }
    throw new FailureError('found no gift this key can order in a LIVE store of the sandbox', 'no_orderable_gift');
  }

  // ---- shared ----

  /** Answers for the account's required custom fields, so creations pass whatever the settings. */
  private requiredAnswers(): { fieldId: string; textValue?: string; checked?: boolean }[] {
    return (this.me.tenant.customFields ?? [])
      .filter((field) => field.required)
      .map((field) =>
        field.type === 'CHECKBOX' ? { fieldId: field.id, checked: true } : { fieldId: field.id, textValue: field.type === 'DROPDOWN' ? field.options[0] : 'sandbox' },
      );
  }

  /** Runs `create` with approvalRequired on, putting the account's setting back afterwards. */
  private async withApprovalRequired<T>(create: () => Promise<T>): Promise<T> {
    const current = (await this.admin.call<Settings>('PATCH', '/settings', {})).approvalRequired;
    if (current) return create();
    await this.admin.call('PATCH', '/settings', { approvalRequired: true });
    try {
      return await create();
    } finally {
      await this.admin.call('PATCH', '/settings', { approvalRequired: current });
    }
  }
}
