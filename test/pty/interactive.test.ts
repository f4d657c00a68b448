/**
 * Guided flows in a real pseudo-terminal: tmux runs the binary, the test types answers with
 * send-keys and reads the screen with capture-pane, polling until the expected text shows.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cleanup.js';
import { startTerminal, type Terminal } from '../helpers/pty.js';
import { svc } from '../helpers/run.js';
import { jsonLines } from '../helpers/lines.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

let sandbox: InProcessSandbox;
let env: Record<string, string>;


/** Runs svc on a terminal (see helpers/pty.ts). */
function start(args: string[], vars: Record<string, string> = env): Promise<Terminal> {
  return startTerminal(args, vars);
}

beforeAll(async () => {
  sandbox = await startSandbox();
  env = { ...sandbox.env('full'), NO_COLOR: '1' };
});

// Each test has its own terminal and tmux server, and the sandbox serves them all: they run side by side.
describe.concurrent('on a terminal', () => {
  it('login asks for the key without echoing it, checks it and saves the profile', async () => {
    const configDir = tempDir();
    const key = sandbox.key('full').apiKey;
    const terminal = await start(['login', '--profile', 'tty', '--base-url', sandbox.baseUrl], { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' });
    await terminal.answer('API key', key, 'Enter');
    const shown = await terminal.waitFor(/EXIT=\d+/);
    expect(shown).toContain('EXIT=0');
    expect(shown).toContain('saved as profile tty');
    expect(shown).not.toContain(key);
    const me = await svc(['--profile', 'tty', 'me'], { env: { SVC_CONFIG_DIR: configDir } });
    expect(JSON.parse(me.stdout).key.name).toBe('full');
  });

  it('links create asks for what is missing and shows the claim URL', async () => {
    const terminal = await start(['links', 'create']);
    await terminal.answer('Campaign (type to filter)', 'VIP');
    await terminal.answer('❯ VIP Winter Gifts', 'Enter');
    await terminal.answer('full name', 'Ada Lovelace', 'Enter');
    await terminal.answer('E-mail for order updates', 'ada@example.com', 'Enter');
    await terminal.answer('Message on the claim page', 'Enter');
    await terminal.answer('Language of the claim page', 'Down', 'Enter');
    await terminal.answer('Player ID (optional)', 'P-77', 'Enter');
    await terminal.answer('VIP tier (optional)', 'Down', 'Down', 'Down', 'Enter');
    await terminal.answer('Marketing consent (optional)', 'Down', 'Enter');
    // One confirmation, by name.
    const summary = await terminal.waitFor('Create this link?');
    expect(summary).toMatch(/^Campaign: +VIP Winter Gifts \([0-9a-f-]{36}\)$/m);
    expect(summary).toMatch(/^VIP tier: +Gold$/m);
    await terminal.answer('Create this link?', 'Enter');
    const shown = await terminal.waitFor('EXIT=0');
    const claimUrl = /Claim URL\s+(\S+)/.exec(shown)?.[1];
    const id = /^ID\s+(\S+)/m.exec(shown)?.[1];
    expect(claimUrl).toBe(`${new URL(sandbox.baseUrl).origin}/claim/${id}`);
    const link = jsonLines((await svc(['links', 'get', id!], { env })).stdout)[0];
    expect(link.claimUrl).toBe(claimUrl);
    expect(link.customFields.map((a: { textValue: string | null; checked: boolean | null }) => a.textValue ?? a.checked)).toEqual(['P-77', 'Gold', true]);
  });

  it('orders place walks store → gift → options → recipient, offering only orderable options', async () => {
    const terminal = await start(['orders', 'place']);
    await terminal.answer('? Store', 'Enter');
    await terminal.answer('? Brand', 'Enter');
    await terminal.answer('Delivery country', 'de', 'Enter');
    await terminal.answer('? Language', 'Enter');
    await terminal.answer('Apparel › Hoodie — 1100', 'Enter');
    // Large comes only in black (white is sold out), so colour is not asked after it.
    await terminal.answer('? Size', 'Down', 'Down', 'Enter');
    await terminal.answer('Recipient name', 'Ada Lovelace', 'Enter');
    await terminal.answer('Phone', '+4915112345678', 'Enter');
    await terminal.answer('Street and number', 'Hauptstr. 1', 'Enter');
    await terminal.answer('City', 'Berlin', 'Enter');
    await terminal.answer('Postal code', '10115', 'Enter');
    await terminal.answer('E-mail for status updates', 'Enter');
    await terminal.answer('Player ID (optional)', 'Enter');
    await terminal.answer('VIP tier (optional)', 'Enter');
    await terminal.answer('Marketing consent (optional)', 'Enter');
    const summary = await terminal.waitFor('Place this order for 1100 SC?');
    expect(summary).toContain('Options:    size=L, color=black');
    expect(summary).not.toContain('? Color');
    expect(summary).toContain('Color: Black (the only one orderable with what you chose)');
    await terminal.answer('Place this order for 1100 SC?', 'y', 'Enter');
    const shown = await terminal.waitFor('EXIT=0');
    const reference = /Order (SVC-\d+) placed: deduct 1100 SC from the player/.exec(shown)?.[1];
    expect(reference).toBeDefined();
    // Optional fields passed with Enter stay unanswered (no "no" recorded for the consent box).
    const order = jsonLines((await svc(['orders', 'ls', '--all'], { env })).stdout).find((candidate) => candidate.reference === reference);
    expect(order.customFields.every((answer: { textValue: unknown; checked: unknown }) => answer.textValue === null && answer.checked === null)).toBe(true);
  });

  it('orders place shows a changed price and places again only after a yes', async () => {
    const stores = jsonLines((await svc(['stores', 'ls'], { env })).stdout);
    const live = stores.find((store) => store.phase === 'LIVE');
    const store = JSON.parse((await svc(['stores', 'show', live.id, '--brand', live.brandIds[0], '--country', 'DE', '-o', 'json'], { env })).stdout);
    const speaker = store.sections.flatMap((section: { items: unknown[] }) => section.items).find((gift: { name: string }) => gift.name === 'Smart Speaker');
    const terminal = await start([
      'orders', 'place', '--store', live.id, '--brand', live.brandIds[0], '--product', speaker.productId, '--variation', 'color=sand',
      '--price', '1', '--country', 'DE', '--name', 'Ada', '--phone', '+4915112345678', '--street', 'Hauptstr. 1', '--city', 'Berlin',
      '--postal-code', '10115', '--yes',
    ]);
    await terminal.answer(`Place the order again at ${speaker.coinPrice}?`, 'y', 'Enter');
    const shown = await terminal.waitFor('EXIT=0');
    expect(shown).toContain(`the order was sent at 1, the gift now costs ${speaker.coinPrice}`);
    // Placed once, at the new price (the other tests order other gifts).
    const orders = jsonLines((await svc(['orders', 'ls', '--all'], { env })).stdout).filter((order) => order.productId === speaker.productId);
    expect(orders.map((order) => [order.coinPrice, order.variations])).toEqual([[speaker.coinPrice, { color: 'sand' }]]);
  });

  it('links cancel asks for confirmation and a no cancels nothing', async () => {
    const campaign = jsonLines((await svc(['campaigns', 'ls'], { env })).stdout).find((c) => c.brandIds.length === 1);
    const link = jsonLines((await svc(['links', 'create', '--campaign', campaign.id, '--name', 'Keep Me'], { env })).stdout)[0];
    const terminal = await start(['links', 'cancel', link.id, '--reason', 'test']);
    await terminal.answer(`Cancel link ${link.id}?`, 'n', 'Enter');
    await terminal.waitFor('EXIT=1');
    expect(jsonLines((await svc(['links', 'get', link.id], { env })).stdout)[0].status).toBe('ACTIVE');
  });
});
