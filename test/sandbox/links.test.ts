import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestSandbox, sleep, startSandbox } from './helpers.js';

let sb: TestSandbox;
let campaigns: { id: string; name: string; brandIds: string[]; expiresAt: string | null }[];
let fields: { id: string; type: string; label: string; options: string[] }[];
let brands: { id: string }[];
let twoBrandCampaign: { id: string; brandIds: string[] };
let counter = 0;
const freshKey = (): string => `key-${Date.now()}-${++counter}`;

beforeAll(async () => {
  sb = await startSandbox();
  campaigns = (await sb.api('GET', '/campaigns')).body.items;
  const me = (await sb.api('GET', '/me')).body;
  fields = me.tenant.customFields;
  brands = me.brands;
  twoBrandCampaign = campaigns.find((c) => c.brandIds.length === 2) as { id: string; brandIds: string[] };
});
afterAll(() => sb.close());

const field = (type: string) => fields.find((f) => f.type === type) as { id: string; options: string[] };

function createLink(body: Record<string, unknown>, options: { as?: 'full' | 'other' | 'links'; idempotencyKey?: string } = {}) {
  return sb.api('POST', '/personal-links', { body, as: options.as, idempotencyKey: options.idempotencyKey ?? freshKey() });
}

describe('campaigns', () => {
  test('ACTIVE by default, sorted by name, brandIds limited to the key; preparing campaigns never listed', async () => {
    const names = campaigns.map((c) => c.name);
    expect(names).toEqual([...names].sort());
    expect(names).not.toContain('Spring Launch');
    expect(campaigns.some((c) => c.expiresAt !== null)).toBe(true);
    const completed = await sb.api('GET', '/campaigns?status=COMPLETED');
    expect(completed.body.items.map((c: { status: string }) => c.status)).toEqual(['COMPLETED']);
    const limited = await sb.api('GET', '/campaigns', { as: 'links' });
    const limitedBrand = (await sb.api('GET', '/me', { as: 'links' })).body.brands[0].id;
    for (const c of limited.body.items) expect(c.brandIds).toEqual([limitedBrand]);
    const bad = await sb.api('GET', '/campaigns?status=NOPE&limit=0&brandId=x');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['brandId', 'limit', 'status']);
  });

  test('pages by cursor', async () => {
    const first = await sb.api('GET', '/campaigns?limit=2');
    expect(first.body.items).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await sb.api('GET', `/campaigns?limit=2&after=${first.body.nextCursor}`);
    expect(second.body.items.map((c: { id: string }) => c.id)).toEqual(campaigns.slice(2, 4).map((c) => c.id));
    expect(second.body.nextCursor).toBeNull();
  });
});

describe('POST /personal-links validation', () => {
  test('names every invalid field in errors[]', async () => {
    const reply = await createLink({
      campaignId: 'nope',
      fullName: 'x'.repeat(256),
      brandId: 42,
      email: 'not-an-email',
      message: 'm'.repeat(256),
      locale: 'fr-FR',
      customFields: [{ fieldId: 'bad' }],
      somethingUndefined: 'ignored',
    });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('invalid_request');
    const byField = Object.fromEntries(reply.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]));
    expect(byField).toMatchObject({
      campaignId: 'invalid',
      fullName: 'too_long',
      brandId: 'invalid',
      email: 'invalid',
      message: 'too_long',
      locale: 'not_enabled',
      'customFields[0].fieldId': 'invalid',
    });
    for (const e of reply.body.errors) expect(e.message).toEqual(expect.any(String));
  });

  test('required fields and email length', async () => {
    const reply = await createLink({ fullName: '   ', email: `${'a'.repeat(250)}@example.com` });
    const byField = Object.fromEntries(reply.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]));
    expect(byField).toEqual({ campaignId: 'required', fullName: 'required', email: 'too_long' });
  });

  test('brandId is required when the key can use more than one of the campaign\'s brands', async () => {
    const reply = await createLink({ campaignId: twoBrandCampaign.id, fullName: 'Ann' });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([expect.objectContaining({ field: 'brandId', code: 'required' })]);
    // The links key can use only one of them: that one is used.
    const limited = await createLink({ campaignId: twoBrandCampaign.id, fullName: 'Ann' }, { as: 'links' });
    expect(limited.status).toBe(201);
    expect(twoBrandCampaign.brandIds).toContain(limited.body.brandId);
  });

  test('custom fields by type', async () => {
    const base = { campaignId: twoBrandCampaign.id, brandId: twoBrandCampaign.brandIds[0], fullName: 'Ann' };
    const invalid = async (answer: Record<string, unknown>) => {
      const reply = await createLink({ ...base, customFields: [answer] });
      expect(reply.status).toBe(400);
      return reply.body.errors[0];
    };
    expect((await invalid({ fieldId: field('DROPDOWN').id, textValue: 'Platinum' })).code).toBe('invalid');
    expect((await invalid({ fieldId: field('CHECKBOX').id, checked: 'yes' })).code).toBe('invalid');
    expect((await invalid({ fieldId: field('CHECKBOX').id, textValue: 'yes' })).code).toBe('invalid');
    expect((await invalid({ fieldId: field('TEXT').id, textValue: 'x'.repeat(1001) })).code).toBe('too_long');

    const ok = await createLink({
      ...base,
      customFields: [
        { fieldId: field('TEXT').id, textValue: 'P-9' },
        { fieldId: field('DROPDOWN').id, textValue: field('DROPDOWN').options[0] },
        { fieldId: '00000000-0000-4000-8000-000000000000', textValue: 'ignored' },
      ],
    });
    expect(ok.status).toBe(201);
    expect(ok.body.customFields).toEqual(
      fields.map((f) => ({
        fieldId: f.id,
        textValue: f.type === 'TEXT' ? 'P-9' : f.type === 'DROPDOWN' ? f.options[0] : null,
        checked: null,
      })),
    );

    await sb.admin('PATCH', '/settings', { requiredCustomFieldIds: [field('CHECKBOX').id] });
    try {
      const missing = await createLink(base);
      expect(missing.status).toBe(400);
      expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'customFields', code: 'invalid' })]);
      expect((await createLink({ ...base, customFields: [{ fieldId: field('CHECKBOX').id, checked: true }] })).status).toBe(201);
    } finally {
      await sb.admin('PATCH', '/settings', { requiredCustomFieldIds: [] });
    }
  });

  test('campaign refusals: not found, other brand, not active, preparing', async () => {
    const unknown = await createLink({ campaignId: '00000000-0000-4000-8000-000000000001', fullName: 'A' });
    expect([unknown.status, unknown.body.code]).toEqual([422, 'campaign_not_found']);
    const notServed = await createLink({ campaignId: twoBrandCampaign.id, fullName: 'A', brandId: brands.find((b) => !twoBrandCampaign.brandIds.includes(b.id))?.id });
    expect([notServed.status, notServed.body.code]).toEqual([422, 'campaign_not_found']);
    const otherBrandCampaign = campaigns.find((c) => c.name === 'High Roller Rewards') as { id: string };
    const forLinksKey = await createLink({ campaignId: otherBrandCampaign.id, fullName: 'A' }, { as: 'links' });
    expect([forLinksKey.status, forLinksKey.body.code]).toEqual([422, 'campaign_not_found']);
    const completed = (await sb.api('GET', '/campaigns?status=COMPLETED')).body.items[0];
    const ended = await createLink({ campaignId: completed.id, fullName: 'A', brandId: completed.brandIds[0] });
    expect([ended.status, ended.body.code]).toEqual([422, 'campaign_not_active']);
    const preparing = sb.sandbox.state.campaigns.find((c) => c.status === 'PREPARING') as { id: string };
    const notReady = await createLink({ campaignId: preparing.id, fullName: 'A' });
    expect([notReady.status, notReady.body.code]).toEqual([422, 'campaign_not_active']);
  });

  test('the link holds no personal data', async () => {
    const reply = await createLink({ campaignId: twoBrandCampaign.id, brandId: twoBrandCampaign.brandIds[0], fullName: 'Zelda Secretname', email: 'zelda@example.com', message: 'Happy birthday' });
    expect(reply.status).toBe(201);
    expect(reply.text).not.toMatch(/Zelda|zelda@|Happy birthday/);
    expect(Object.keys(reply.body).sort()).toEqual(
      ['id', 'campaignId', 'selection', 'brandId', 'status', 'claimUrl', 'customFields', 'expiresAt', 'createdAt', 'approvedAt', 'claimedAt', 'cancelledAt', 'updatedAt'].sort(),
    );
    const events = await sb.api('GET', '/events?limit=100');
    expect(events.text).not.toMatch(/Zelda|zelda@|Happy birthday/);
  });
});

describe('idempotency', () => {
  const body = () => ({ campaignId: twoBrandCampaign.id, brandId: twoBrandCampaign.brandIds[0], fullName: 'Idem Potent', customFields: [] });

  test('a replay returns the stored response with Idempotent-Replayed; key order and whitespace ignored', async () => {
    const key = freshKey();
    const first = await createLink(body(), { idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const count = sb.sandbox.state.links.length;
    const reordered = `{ "fullName": "Idem Potent",\n "customFields": [], "brandId": "${twoBrandCampaign.brandIds[0]}", "campaignId": "${twoBrandCampaign.id}" }`;
    const replay = await sb.api('POST', '/personal-links', { rawBody: reordered, headers: { 'Content-Type': 'application/json' }, idempotencyKey: key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(sb.sandbox.state.links.length).toBe(count);
  });

  test('a different request with the same key is 422 idempotency_key_reused; per API key', async () => {
    const key = freshKey();
    expect((await createLink(body(), { idempotencyKey: key })).status).toBe(201);
    const changed = await createLink({ ...body(), fullName: 'Someone Else' }, { idempotencyKey: key });
    expect([changed.status, changed.body.code]).toEqual([422, 'idempotency_key_reused']);
    const added = await createLink({ ...body(), message: 'extra' }, { idempotencyKey: key });
    expect(added.status).toBe(422);
    const otherKey = await createLink(body(), { idempotencyKey: key, as: 'other' });
    expect(otherKey.status).toBe(201);
    expect(otherKey.headers.get('idempotent-replayed')).toBeNull();
  });

  test('only 2xx responses are stored', async () => {
    const key = freshKey();
    const refused = await createLink({ ...body(), fullName: '' }, { idempotencyKey: key });
    expect(refused.status).toBe(400);
    const fixed = await createLink(body(), { idempotencyKey: key });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  test('missing, blank and too long keys', async () => {
    const missing = await sb.api('POST', '/personal-links', { body: body() });
    expect([missing.status, missing.body.code]).toEqual([400, 'idempotency_key_required']);
    const blank = await sb.api('POST', '/personal-links', { body: body(), headers: { 'Idempotency-Key': '  ' } });
    expect([blank.status, blank.body.code]).toEqual([400, 'idempotency_key_required']);
    const long = await createLink(body(), { idempotencyKey: 'k'.repeat(256) });
    expect([long.status, long.body.code]).toEqual([400, 'idempotency_key_invalid']);
    expect((await createLink(body(), { idempotencyKey: 'k'.repeat(255) })).status).toBe(201);
  });

  test('409 idempotency_request_in_progress while the first is running', async () => {
    await sb.admin('PUT', '/faults', { delayMs: 400 });
    try {
      const key = freshKey();
      const first = createLink(body(), { idempotencyKey: key });
      await sleep(100);
      const second = await createLink(body(), { idempotencyKey: key });
      expect([second.status, second.body.code]).toEqual([409, 'idempotency_request_in_progress']);
      expect((await first).status).toBe(201);
    } finally {
      await sb.admin('PUT', '/faults', {});
    }
  });

  test('keys are kept 7 days on the virtual clock', async () => {
    const local = await startSandbox();
    try {
      const c = (await local.api('GET', '/campaigns')).body.items.find((x: { brandIds: string[] }) => x.brandIds.length === 2);
      const request = { campaignId: c.id, brandId: c.brandIds[0], fullName: 'Week' };
      const first = await local.api('POST', '/personal-links', { body: request, idempotencyKey: 'weekly' });
      await local.admin('POST', '/clock', { advanceSeconds: 6 * 86400 });
      const replay = await local.api('POST', '/personal-links', { body: request, idempotencyKey: 'weekly' });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.id).toBe(first.body.id);
      await local.admin('POST', '/clock', { advanceSeconds: 2 * 86400 });
      const fresh = await local.api('POST', '/personal-links', { body: request, idempotencyKey: 'weekly' });
      expect(fresh.status).toBe(201);
      expect(fresh.headers.get('idempotent-replayed')).toBeNull();
      expect(fresh.body.id).not.toBe(first.body.id);
    } finally {
      await local.close();
    }
  });
});

describe('cancel', () => {
  test('cancels once, then 200 unchanged with no event; created elsewhere and final states are 409', async () => {
    const link = (await createLink({ campaignId: twoBrandCampaign.id, brandId: twoBrandCampaign.brandIds[0], fullName: 'C' })).body;
    const missingReason = await sb.api('POST', `/personal-links/${link.id}:cancel`, { body: {} });
    expect(missingReason.body.errors[0]).toMatchObject({ field: 'reason', code: 'required' });
    const tooLong = await sb.api('POST', `/personal-links/${link.id}:cancel`, { body: { reason: 'r'.repeat(1001) } });
    expect(tooLong.body.errors[0]).toMatchObject({ field: 'reason', code: 'too_long' });
    const byOther = await sb.api('POST', `/personal-links/${link.id}:cancel`, { body: { reason: 'x' }, as: 'other' });
    expect(byOther.status).toBe(409);
    expect(byOther.body).toMatchObject({ code: 'not_cancellable', reason: 'created_elsewhere' });

    const eventsBefore = sb.sandbox.state.lastSeq;
    const cancelled = await sb.api('POST', `/personal-links/${link.id}:cancel`, { body: { reason: 'player left' } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    expect(cancelled.body.cancelledAt).toEqual(expect.any(String));
    expect(cancelled.text).not.toContain('player left');
    expect(sb.sandbox.state.lastSeq).toBe(eventsBefore + 1);
    const again = await sb.api('POST', `/personal-links/${link.id}:cancel`, { body: { reason: 'second reason' } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(cancelled.body);
    expect(sb.sandbox.state.lastSeq).toBe(eventsBefore + 1);
    expect(sb.sandbox.state.link(link.id)?.cancelReason).toBe('player left');

    const claimed = (await createLink({ campaignId: twoBrandCampaign.id, brandId: twoBrandCampaign.brandIds[0], fullName: 'D' })).body;
    const claim = await sb.admin('POST', `/links/${claimed.id}/claim`);
    expect(claim.status).toBe(200);
    expect(claim.body.link.status).toBe('CLAIMED');
    const refused = await sb.api('POST', `/personal-links/${claimed.id}:cancel`, { body: { reason: 'late' } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'not_cancellable', currentStatus: 'CLAIMED' });

    const teamLink = (await sb.admin('POST', '/links', { brandId: twoBrandCampaign.brandIds[0], campaignId: twoBrandCampaign.id, fullName: 'Team' })).body;
    const teamCancel = await sb.api('POST', `/personal-links/${teamLink.id}:cancel`, { body: { reason: 'x' } });
    expect(teamCancel.body.reason).toBe('created_elsewhere');
  });

  test('the claim places an order that belongs to no key', async () => {
    const link = (await createLink({ campaignId: twoBrandCampaign.id, brandId: twoBrandCampaign.brandIds[0], fullName: 'E' })).body;
    const claim = await sb.admin('POST', `/links/${link.id}/claim`);
    expect(claim.body.order.id).toEqual(expect.any(String));
    const orders = await sb.api('GET', '/reward-store-orders?limit=100');
    expect(orders.body.items.map((o: { id: string }) => o.id)).not.toContain(claim.body.order.id);
    expect((await sb.api('GET', `/reward-store-orders/${claim.body.order.id}`)).status).toBe(404);
    expect((await sb.admin('POST', `/links/${link.id}/claim`)).status).toBe(409);
  });
});

describe('approval and expiry', () => {
  test('REQUESTED links wait for approval; approval emits one event', async () => {
    const local = await startSandbox({ approvalRequired: true });
    try {
      const c = (await local.api('GET', '/campaigns')).body.items.find((x: { brandIds: string[] }) => x.brandIds.length === 2);
      const created = await local.api('POST', '/personal-links', { body: { campaignId: c.id, brandId: c.brandIds[0], fullName: 'R' }, idempotencyKey: 'r1' });
      expect(created.body.status).toBe('REQUESTED');
      expect(created.body.approvedAt).toBeNull();
      expect((await local.admin('POST', `/links/${created.body.id}/claim`)).status).toBe(409);
      const approved = await local.admin('POST', `/links/${created.body.id}/approve`);
      expect(approved.body.status).toBe('ACTIVE');
      expect(approved.body.approvedAt).toEqual(expect.any(String));
      expect((await local.admin('POST', `/links/${created.body.id}/approve`)).status).toBe(409);
      const events = (await local.api('GET', '/events?limit=100')).body.items.filter((e: { data: { id: string } }) => e.data.id === created.body.id);
      expect(events.map((e: { type: string; data: { status: string } }) => [e.type, e.data.status])).toEqual([
        ['personal_link.created', 'REQUESTED'],
        ['personal_link.approved', 'ACTIVE'],
      ]);
    } finally {
      await local.close();
    }
  });

  test('a campaign completes at its expiresAt and its open links expire, each with one event', async () => {
    const local = await startSandbox();
    try {
      const expiring = (await local.api('GET', '/campaigns')).body.items.find((x: { expiresAt: string | null }) => x.expiresAt !== null);
      const link = await local.api('POST', '/personal-links', { body: { campaignId: expiring.id, fullName: 'X' }, idempotencyKey: 'x1' });
      expect(link.body.expiresAt).toBe(expiring.expiresAt);
      await local.admin('POST', '/clock', { advanceSeconds: 31 * 86400 });
      const read = await local.api('GET', `/personal-links/${link.body.id}`);
      expect(read.body.status).toBe('EXPIRED');
      expect((await local.api('GET', '/campaigns')).body.items.map((c: { id: string }) => c.id)).not.toContain(expiring.id);
      const completed = (await local.api('GET', '/campaigns?status=COMPLETED')).body.items.map((c: { id: string }) => c.id);
      expect(completed).toContain(expiring.id);
      await local.admin('POST', '/clock', { advanceSeconds: 60 });
      const events = (await local.api('GET', '/events?limit=100')).body.items.filter((e: { type: string }) => e.type === 'personal_link.expired');
      expect(events.map((e: { data: { id: string } }) => e.data.id).sort()).toEqual(
        local.sandbox.state.links.filter((l) => l.campaignId === expiring.id).map((l) => l.id).sort(),
      );
      const late = await local.api('POST', '/personal-links', { body: { campaignId: expiring.id, fullName: 'Y' }, idempotencyKey: 'y1' });
      expect(late.body.code).toBe('campaign_not_active');
      const expiredCancel = await local.api('POST', `/personal-links/${link.body.id}:cancel`, { body: { reason: 'x' } });
      expect(expiredCancel.body).toMatchObject({ code: 'not_cancellable', currentStatus: 'EXPIRED' });
    } finally {
      await local.close();
    }
  });

  test('admin complete ends a campaign; a second complete is 409', async () => {
    const local = await startSandbox();
    try {
      const c = (await local.api('GET', '/campaigns')).body.items[0];
      expect((await local.admin('POST', `/campaigns/${c.id}/complete`)).status).toBe(200);
      expect((await local.admin('POST', `/campaigns/${c.id}/complete`)).status).toBe(409);
      const statuses = local.sandbox.state.links.filter((l) => l.campaignId === c.id).map((l) => l.status);
      expect(statuses.every((s) => s === 'EXPIRED')).toBe(true);
    } finally {
      await local.close();
    }
  });
});

describe('listing links', () => {
  test('newest first, stable cursors, filters, team links and a CATALOG link', async () => {
    const local = await startSandbox();
    try {
      local.sandbox.state.seedLinks(130, { campaign: local.sandbox.state.campaigns[0], brandIds: local.sandbox.state.campaigns[0].brandIds, createdBy: 'full' });
      const seen: string[] = [];
      const items: { selection: string | null; campaignId: string | null }[] = [];
      let after: string | null = null;
      do {
        const page: { body: { items: { id: string; createdAt: string }[]; nextCursor: string | null } } = await local.api('GET', `/personal-links?limit=50${after ? `&after=${after}` : ''}`);
        seen.push(...page.body.items.map((l) => l.id));
        items.push(...(page.body.items as unknown as typeof items));
        after = page.body.nextCursor;
      } while (after !== null);
      const expected = [...local.sandbox.state.links].reverse().map((l) => l.id);
      expect(seen).toEqual(expected);
      const all = (await local.api('GET', '/personal-links?limit=100')).body.items;
      expect(items.some((l) => l.selection === 'CATALOG' && l.campaignId === null)).toBe(true);
      const created = all.map((l: { createdAt: string }) => l.createdAt);
      expect(created).toEqual([...created].sort().reverse());

      const bad = await local.api('GET', '/personal-links?after=garbage&limit=101&status=OPEN');
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['after', 'limit', 'status']);
      const wrongList = (await local.api('GET', '/campaigns?limit=1')).body.nextCursor;
      expect((await local.api('GET', `/personal-links?after=${wrongList}`)).status).toBe(400);

      const cancelled = await local.api('GET', '/personal-links?status=CANCELLED');
      expect(cancelled.body.items).toEqual([]);
      const campaignId = local.sandbox.state.campaigns[1].id;
      const byCampaign = await local.api('GET', `/personal-links?campaignId=${campaignId}`);
      expect(byCampaign.body.items.every((l: { campaignId: string }) => l.campaignId === campaignId)).toBe(true);
      expect(byCampaign.body.items.length).toBeGreaterThan(0);
    } finally {
      await local.close();
    }
  });
});
