/**
 * Views for people in a real terminal (tmux) at 80×24 and 200×50: whole screens. A table view's
 * screen is exactly what the command layer renders for that width (whose content the command tests
 * check), so the real terminal neither wraps nor garbles it; guided flows that ask again with the
 * reason, and the verdict and deliveries shown once, are compared line by line.
 */
import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cleanup.js';
import { startTerminal } from '../helpers/pty.js';
import { runAtTerminal } from '../helpers/run.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { placeOrders } from '../helpers/orders.js';
import { runInProcess } from '../helpers/run.js';

let sandbox: InProcessSandbox;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox();
  env = { ...sandbox.env('full'), NO_COLOR: '1' };
  // History for the views: a link cancelled, an order placed by the team's claim.
  const brandId = sandbox.key('full').brandIds[0];
  const created = await sandbox.admin<{ id: string }>('POST', '/links', { brandId, fullName: 'Ada' });
  await sandbox.admin('POST', `/links/${created.body.id}/claim`);
  // An order this key placed, cancelled by the team: orders ls has a row, the feed an order event.
  const [order] = await placeOrders({ api: (method, path, options = {}) => apiCall(method, path, options) }, 1);
  await sandbox.admin('POST', `/orders/${order.id}/cancel`);
});

/** The `full` key's API call, shaped as the order helper expects it. */
async function apiCall(method: string, path: string, options: { idempotencyKey?: string; body?: unknown }): Promise<{ status: number; headers: Headers; text: string; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${sandbox.key('full').apiKey}`, 'content-type': 'application/json' };
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const response = await fetch(`${sandbox.baseUrl}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

const SIZES = [
  { columns: 80, rows: 24 },
  { columns: 200, rows: 50 },
] as const;

/** What a terminal of `rows` shows after the command: its output, the exit line, blank rows below. */
function screenOf(output: string, exitCode: number, rows: number): string[] {
  // The shell's cursor waits on the line below the exit line.
  const lines = [...output.replace(/\n$/, '').split('\n').map((line) => line.trimEnd()), `EXIT=${exitCode}`, ''];
  return [...lines, ...Array<string>(Math.max(0, rows - lines.length)).fill('')].slice(-rows);
}

describe.concurrent('views on a real terminal', () => {
  for (const size of SIZES) {
    for (const args of [['links', 'ls'], ['events', 'tail'], ['me'], ['orders', 'ls']]) {
      it(`${args.join(' ')} at ${size.columns}×${size.rows}: the whole screen is the view for that width, no line wider`, async () => {
        const terminal = await startTerminal(args, env, size);
        await terminal.waitFor(/EXIT=\d+/);
        const screen = await terminal.screen();
        const expected = await runAtTerminal(args, env, size.columns);
        expect(screen).toEqual(screenOf(expected.stdout + expected.stderr, expected.exitCode, size.rows));
        expect(Math.max(...screen.map((line) => line.length))).toBeLessThanOrEqual(size.columns);
      });
    }

    it(`events stats at ${size.columns}×${size.rows}: a chart with a row per type, totals and a time axis, fitting the width`, async () => {
      const terminal = await startTerminal(['events', 'stats'], env, size);
      await terminal.waitFor(/EXIT=\d+/);
      const screen = (await terminal.screen()).filter((line) => line !== '');
      const expected = (await runAtTerminal(['events', 'stats'], env, size.columns)).stdout.trimEnd().split('\n').filter((line) => line !== '');
      // The header names the minute the range starts, which may have moved on between the two runs.
      expect(screen[0]).toMatch(/^\d+ events per hour, \d{4}-\d\d-\d\d \d\d:\d\d( – \d{4}-\d\d-\d\d |–)\d\d:\d\d UTC/);
      expect(screen.slice(1)).toEqual([...expected.slice(1), 'EXIT=0']);
      expect(screen.some((line) => line.startsWith('personal_link.created '))).toBe(true);
      expect(screen.some((line) => line.startsWith('all types '))).toBe(true);
      expect(Math.max(...screen.map((line) => line.length))).toBeLessThanOrEqual(size.columns);
    });
  }

  it('orders ls, events tail and profiles ls at 80×24 keep the column a person acts on whole', async () => {
    const orders = await startTerminal(['orders', 'ls'], env, { columns: 80, rows: 24 });
    await orders.waitFor(/EXIT=\d+/);
    const ordersScreen = (await orders.screen()).filter((line) => line !== '');
    expect(ordersScreen[1]).toMatch(/^│ ID {35}│ Reference {2}│ Status {4}│ Gift +│$/);
    expect(ordersScreen[2]).toMatch(/^│ [0-9a-f-]{36} │ SVC-\d{6} │ CANCELLED │ .+ │$/);
    const tail = await startTerminal(['events', 'tail', '--type', 'order.'], env, { columns: 80, rows: 24 });
    await tail.waitFor(/EXIT=\d+/);
    const tailScreen = (await tail.screen()).filter((line) => line !== '');
    expect(tailScreen[0]).toBe('Time      Type                     ID                                    Status');
    // An order's reference stands in the id's column beside the time of day; the status shrinks.
    expect(tailScreen[1]).toMatch(/^\d\d:\d\d:\d\d {2}order\.cancelled {10}SVC-\d{6} {28}CANCEL…$/);
    const configDir = tempDir();
    const login = await runInProcess(['login', '--profile', 'sandbox-b', '--base-url', sandbox.baseUrl, '--api-key-stdin'], { SVC_CONFIG_DIR: configDir }, `${sandbox.key('full').apiKey}\n`);
    expect(login.exitCode).toBe(0);
    const profiles = await startTerminal(['profiles', 'ls'], { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' }, { columns: 80, rows: 24 });
    await profiles.waitFor(/EXIT=\d+/);
    const profilesScreen = (await profiles.screen()).filter((line) => line !== '');
    expect(profilesScreen.some((line) => line.includes(`│ ${sandbox.baseUrl} │`))).toBe(true);
    for (const screen of [ordersScreen, tailScreen, profilesScreen]) expect(Math.max(...screen.map((line) => line.length))).toBeLessThanOrEqual(80);
  });

  it('events tail at 80×24: a link event\'s line keeps the time, the whole type and the link\'s whole id', async () => {
    const terminal = await startTerminal(['events', 'tail', '--type', 'personal_link.'], env, { columns: 80, rows: 24 });
    await terminal.waitFor(/EXIT=\d+/);
    const screen = (await terminal.screen()).filter((line) => line !== '');
    const links = await runInProcess(['links', 'ls', '--all', '-o', 'jsonl'], env);
    const ids = new Set(links.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line).id as string));
    expect(screen[0]).toBe('Time      Type                     ID                                    Status');
    const lines = screen.slice(1, -1);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const match = /^(\d\d:\d\d:\d\d) {2}(personal_link\.[a-z_]+) +([0-9a-f-]{36}) {2}\S/.exec(line);
      expect(match, line).not.toBeNull();
      expect(ids.has(match![3]), line).toBe(true);
    }
    expect(screen.at(-1)).toBe('EXIT=0');
    expect(Math.max(...screen.map((line) => line.length))).toBeLessThanOrEqual(80);
  });

  it('trigger -o table renders its events as events tail does (80×24)', async () => {
    // A sandbox of its own: the events trigger makes must not change the screens compared beside it.
    const own = await startSandbox();
    const terminal = await startTerminal(['trigger', 'order.sent', '-o', 'table'], { ...own.env('full'), NO_COLOR: '1' }, { columns: 80, rows: 24 });
    await terminal.waitFor(/EXIT=\d+/);
    const screen = (await terminal.screen()).filter((line) => line !== '');
    expect(screen[0]).toBe('Time      Type                     ID                                    Status');
    expect(screen.slice(1, -1).every((line) => /^\d\d:\d\d:\d\d {2}order\./.test(line))).toBe(true);
    expect(screen.some((line) => /order\.sent +SVC-\d{6} +SENT$/.test(line))).toBe(true);
    expect(screen.at(-1)).toBe('EXIT=0');
    expect(Math.max(...screen.map((line) => line.length))).toBeLessThanOrEqual(80);
  });

  it('login asks again with the reason after a malformed key and after a refused one (80×24)', async () => {
    const configDir = tempDir();
    const key = sandbox.key('full').apiKey;
    const terminal = await startTerminal(['login', '--profile', 'tty', '--base-url', sandbox.baseUrl], { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' }, { columns: 80, rows: 24 });
    await terminal.answer('API key', 'nope', 'Enter');
    await terminal.waitFor('try again');
    await terminal.answer('? API key', 'svc_live_AAAAAAAAAAAAAAAAAAAA', 'Enter');
    await terminal.waitFor('refused that key');
    await terminal.answer('? API key', key, 'Enter');
    await terminal.waitFor(/EXIT=\d+/);
    const screen = (await terminal.screen()).filter((line) => line !== '');
    const refused = `${sandbox.baseUrl} refused that key (invalid_api_key: The API key is not known.); try again.`;
    expect(screen.slice(0, 3)).toEqual([
      '✔ API key (svc_live_…): ****',
      'That is not a key of the form svc_live_… (check what was pasted); try again.',
      `✔ API key (svc_live_…): ${'*'.repeat(29)}`,
    ]);
    // 80 columns wrap the reason where the terminal does (the space at the break is not drawn).
    expect(screen.slice(3, 5)).toEqual([refused.slice(0, 80).trimEnd(), refused.slice(80)]);
    expect(screen).toContain(`✔ API key (svc_live_…): ${'*'.repeat(key.length)}`);
    expect(screen.at(-1)).toBe('EXIT=0');
    expect(screen.join('\n')).not.toContain(key);
  });

  it('orders place asks for another country where the gift is not sold, then confirms by name with the currency (80×24)', async () => {
    const stores = (await runAtTerminal(['-o', 'jsonl', 'stores', 'ls'], env)).stdout.trim().split('\n').map((line) => JSON.parse(line));
    const live = stores.find((store) => store.phase === 'LIVE');
    const store = JSON.parse((await runAtTerminal(['-o', 'json', 'stores', 'show', live.id, '--brand', live.brandIds[0], '--country', 'DE'], env)).stdout);
    const speaker = store.sections.flatMap((section: { items: unknown[] }) => section.items).find((gift: { name: string }) => gift.name === 'Smart Speaker');
    const terminal = await startTerminal(
      ['orders', 'place', '--store', live.id, '--brand', live.brandIds[0], '--product', speaker.productId, '--variation', 'color=sand', '--name', 'Ada', '--phone', '+4915112345678', '--street', 'Hauptstr. 1', '--city', 'Berlin', '--postal-code', '10115', '--locale', 'en-US'],
      env,
      { columns: 80, rows: 24 },
    );
    await terminal.answer('Delivery country', 'HK', 'Enter');
    await terminal.answer('is not sold in HK', 'DE', 'Enter');
    for (const field of ['E-mail for status updates', 'Player ID (optional)', 'VIP tier (optional)', 'Marketing consent (optional)']) await terminal.answer(field, 'Enter');
    await terminal.waitFor('Place this order for 1800 SC?');
    const screen = (await terminal.screen()).filter((line) => line !== '');
    expect(screen.slice(0, 3)).toEqual(['✔ Delivery country (two letters, e.g. DE) HK', 'This gift is not sold in HK: choose another delivery country.', '✔ Delivery country (two letters, e.g. DE) DE']);
    expect(screen.slice(-9)).toEqual([
      '✔ Marketing consent (optional) (skip)',
      `Store:      Winter Rewards (${live.id})`,
      `Brand:      Lucky Star Casino (${live.brandIds[0]})`,
      `Gift:       Smart Speaker (${speaker.productId})`,
      'Options:    color=sand',
      'Price:      1800 SC',
      'Recipient:  Ada, +4915112345678',
      'Address:    Hauptstr. 1, 10115 Berlin, DE',
      '? Place this order for 1800 SC? (y/N)',
    ]);
    await terminal.answer('Place this order', 'n', 'Enter');
    // Declining is an answer, not a failure: one line, exit 0.
    await terminal.waitFor('EXIT=0');
    expect((await terminal.screen()).filter((line) => line !== '').slice(-3)).toEqual(['✔ Place this order for 1800 SC? No', 'Order not placed (you declined); nothing was sent.', 'EXIT=0']);
  });

  it('verify-signature shows its verdict once (80×24)', async () => {
    const dir = tempDir('svc-verdict-');
    writeFileSync(join(dir, 'body.json'), '{}');
    const terminal = await startTerminal(['verify-signature', '--header', `t=1763719200,v1=${'0'.repeat(64)}`, '--payload-file', join(dir, 'body.json'), '--now', '1763719200'], { ...env, SVC_WEBHOOK_SECRET: 'whsec_test' }, { columns: 80, rows: 24 });
    await terminal.waitFor(/EXIT=\d+/);
    const screen = (await terminal.screen()).filter((line) => line !== '');
    expect(screen.filter((line) => line.includes('invalid'))).toEqual(['✗ invalid: no_matching_signature: none of the 1 v1 signature matches the payload']);
    expect(screen.join('\n').split('no_matching_signature')).toHaveLength(2);
    expect(screen.some((line) => line.startsWith('error:'))).toBe(false);
    expect(screen.at(-1)).toBe('EXIT=1');
  });

  it('webhooks listen: its ready line first, then each delivery once (80×24)', async () => {
    const secret = 'a'.repeat(64);
    const terminal = await startTerminal(['webhooks', 'listen', '--port', '0'], { ...env, SVC_WEBHOOK_SECRET: secret }, { columns: 80, rows: 24 });
    const ready = await terminal.waitFor(/Ready: http:\/\/127\.0\.0\.1:\d+\/webhooks/);
    const url = /Ready: (\S+)/.exec(ready)![1];
    const body = JSON.stringify({ id: 'evt-1', type: 'order.sent', occurredAt: '2026-11-24T10:00:00.000000Z', environment: 'production', data: { id: 'o-1', status: 'SENT' } });
    const t = Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'svc-event-id': 'evt-1', 'svc-signature': `t=${t},v1=${signature}` }, body });
    expect(response.status).toBe(200);
    await terminal.waitFor('✓ verified');
    const screen = (await terminal.screen()).filter((line) => line !== '');
    expect(screen[0]).toBe(url.replace(/^/, 'Ready: '));
    expect(screen.filter((line) => line.includes('evt-1'))).toHaveLength(1);
    expect(screen.filter((line) => line.includes('order.sent'))).toHaveLength(1);
  });

  it('webhooks listen at 80 columns: every delivery line keeps its event id whole, verified, duplicate or refused', async () => {
    const secret = 'b'.repeat(64);
    const terminal = await startTerminal(['webhooks', 'listen', '--port', '0'], { ...env, SVC_WEBHOOK_SECRET: secret }, { columns: 80, rows: 24 });
    const url = /Ready: (\S+)/.exec(await terminal.waitFor(/Ready: http:\/\/127\.0\.0\.1:\d+\/webhooks/))![1];
    const ids = ['6484af50-0160-48ce-8272-39f15e6d84c4', '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11'];
    const send = async (id: string, signed: boolean) => {
      const body = JSON.stringify({ id, type: 'personal_link.cancelled', occurredAt: '2026-11-24T10:00:00.000000Z', environment: 'production', data: { id: 'l-1', status: 'CANCELLED' } });
      const t = Math.floor(Date.now() / 1000);
      const signature = createHmac('sha256', signed ? secret : 'c'.repeat(64)).update(`${t}.${body}`).digest('hex');
      return (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'svc-signature': `t=${t},v1=${signature}` }, body })).status;
    };
    expect([await send(ids[0], true), await send(ids[0], true), await send(ids[1], false)]).toEqual([200, 200, 400]);
    await terminal.waitFor(`${ids[1]}  ✗`);
    const screen = (await terminal.screen()).filter((line) => line !== '');
    const lines = screen.filter((line) => ids.some((id) => line.includes(id)));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  ${ids[0]}  personal_link\\.cancelled  ✓$`));
    expect(lines[1]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  ${ids[0]}  personal_link\\.canc…  ✓ duplicate$`));
    expect(lines[2]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  ${ids[1]}  ✗ no_matching_signature: `));
    expect(Math.max(...screen.map((line) => line.length))).toBeLessThanOrEqual(80);
  });
});
