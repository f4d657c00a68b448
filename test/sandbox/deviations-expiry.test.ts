/**
 * A link expires at its campaign's expiresAt: its updatedAt and the personal_link.expired event's
 * occurredAt are that instant, however far past it the virtual clock was moved in one jump.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type TestSandbox, startSandbox } from './helpers.js';

let sb: TestSandbox;
beforeEach(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.close());

async function expiringCampaign(): Promise<{ id: string; brandIds: string[]; expiresAt: string }> {
  const campaigns: { id: string; brandIds: string[]; expiresAt: string | null }[] = (await sb.api('GET', '/campaigns')).body.items;
  const campaign = campaigns.find((c) => c.expiresAt !== null);
  if (campaign === undefined) throw new Error('the seed has no campaign with an expiry');
  return campaign as { id: string; brandIds: string[]; expiresAt: string };
}

async function createLink(campaignId: string, name: string): Promise<{ id: string; status: string; createdAt: string }> {
  const reply = await sb.api('POST', '/personal-links', { body: { campaignId, fullName: name }, idempotencyKey: `expiry-${name}` });
  expect(reply.status).toBe(201);
  return reply.body;
}

describe('expiry at the campaign\'s expiresAt', () => {
  test('after a jump of 45 days, the expired links and their events carry the expiry instant', async () => {
    const campaign = await expiringCampaign();
    const first = await createLink(campaign.id, 'First');
    const second = await createLink(campaign.id, 'Second');
    const cancelled = await createLink(campaign.id, 'Cancelled');
    expect((await sb.api('POST', `/personal-links/${cancelled.id}:cancel`, { body: { reason: 'not needed' } })).status).toBe(200);
    const cursor = (await sb.api('GET', '/events?limit=100')).body.nextCursor;

    await sb.admin('POST', '/clock', { advanceSeconds: 45 * 86_400 });

    for (const link of [first, second]) {
      const read = await sb.api('GET', `/personal-links/${link.id}`);
      expect(read.body).toMatchObject({ status: 'EXPIRED', expiresAt: campaign.expiresAt, updatedAt: campaign.expiresAt, createdAt: link.createdAt });
    }
    expect((await sb.api('GET', `/personal-links/${cancelled.id}`)).body.status).toBe('CANCELLED');
    const events: { type: string; occurredAt: string; data: { id: string; status: string; updatedAt: string } }[] = (
      await sb.api('GET', `/events?after=${cursor}&limit=100`)
    ).body.items;
    // The seed's own open links of that campaign expire with ours, all at the same instant.
    const ours = new Set([first.id, second.id]);
    expect(events.filter((e) => ours.has(e.data.id)).map((e) => [e.type, e.data.id, e.data.status, e.occurredAt, e.data.updatedAt])).toEqual([
      ['personal_link.expired', first.id, 'EXPIRED', campaign.expiresAt, campaign.expiresAt],
      ['personal_link.expired', second.id, 'EXPIRED', campaign.expiresAt, campaign.expiresAt],
    ]);
    expect(events.length).toBeGreaterThan(2);
    for (const event of events) {
      expect([event.type, event.data.status, event.occurredAt, event.data.updatedAt]).toEqual(['personal_link.expired', 'EXPIRED', campaign.expiresAt, campaign.expiresAt]);
    }
    const completed = (await sb.api('GET', '/campaigns?status=COMPLETED')).body.items.map((c: { id: string }) => c.id);
    expect(completed).toContain(campaign.id);
  });

  test('the same when the expiry is applied by the background sweep, with no API call after the jump', async () => {
    const campaign = await expiringCampaign();
    const link = await createLink(campaign.id, 'Swept');
    // The clock moved with no call: the sweep that runs every second applies the expiry.
    sb.sandbox.clock.advance(33 * 86_400);
    sb.sandbox.state.sweep();
    const read = await sb.api('GET', `/personal-links/${link.id}`);
    expect(read.body).toMatchObject({ status: 'EXPIRED', updatedAt: campaign.expiresAt });
  });

  test('a link changed by the team after the jump: the expiry came first, at its own instant', async () => {
    const campaign = await expiringCampaign();
    const link = await createLink(campaign.id, 'Team');
    sb.sandbox.clock.advance(40 * 86_400);
    // The admin API applies what is due before it acts: the link is already EXPIRED.
    const claim = await sb.admin('POST', `/links/${link.id}/claim`);
    expect(claim.status).toBe(409);
    const read = await sb.api('GET', `/personal-links/${link.id}`);
    expect(read.body).toMatchObject({ status: 'EXPIRED', updatedAt: campaign.expiresAt, claimedAt: null });
  });
});
