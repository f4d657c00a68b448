/**
 * The moves behind `svc trigger` (sandbox only): makes the sandbox produce an event of a type,
 * creating what it needs when no id is given. Links are made and moved by "the team" (the admin
 * API), so the key receives their webhooks; orders are placed by the key (only the placing key ever
 * sees an order) and moved by the team. A flow that needs a REQUESTED record switches
 * approvalRequired on for that one creation and back; moves needed on the way are made too.
 */
import type { ApiClient } from '../api/client.js';
import { getPersonalLink, getRewardStore, getRewardStoreOrder, listRewardStores, placeRewardStoreOrder } from '../api/resources.js';
import { API_LIMITS, type CountryCode, type EventType, type Me, type PersonalLink, type RewardStoreOrder } from '../api/types.js';
import type { Context } from '../app/context.js';
import { ApiError, FailureError } from '../core/errors.js';
import { terminalSafeLine } from '../core/sanitize.js';
import type { SandboxAdmin } from './sandbox-admin.js';

interface Settings {
  approvalRequired: boolean;
}

const PLAYER = 'Triggered Player';

/** The moves behind each event type; every record it makes or moves is added to `touched`. */
export class Trigger {
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
