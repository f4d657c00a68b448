/**
 * Guided flows in a real pseudo-terminal: tmux runs the binary, the test types answers with
 * send-keys and reads the screen with capture-pane, polling until the expected text shows.
 */
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startSandbox, svc, tempConfigDir, type SandboxHandle } from '../helpers/svc.js';

/**
 * A tmux server of our own per test, so the tests never touch the user's sessions and a server
 * still shutting down after one test cannot refuse the next one's session.
 */
let socket = '';
let tests = 0;
const SESSION = 'svc';
let sandbox: SandboxHandle;
let env: Record<string, string>;

const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const screen = (): string => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', SESSION);
const jsonLines = (text: string) => text.split('\n').filter(Boolean).map((line) => JSON.parse(line));

/** Runs svc on a terminal; the shell then prints the exit code and keeps the pane open to be read. */
function start(args: string[]): void {
  socket = `svc-test-${process.pid}-${++tests}`;
  const vars = Object.entries(env).map(([name, value]) => `${name}=${quote(value)}`);
  const command = `env -u CI ${vars.join(' ')} ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}; echo "EXIT=$?"; sleep 120`;
  tmux('new-session', '-d', '-s', SESSION, '-x', '180', '-y', '60', command);
}

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Waits up to 10 s for the text to appear on the screen; returns the screen. */
async function waitFor(text: string | RegExp): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const shown = screen();
    if (typeof text === 'string' ? shown.includes(text) : text.test(shown)) return shown;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${text}; screen:\n${shown}`);
    await sleep(50);
  }
}

/** Answers a prompt once it shows: types the keys (text or key names such as Enter, Down). */
async function answer(prompt: string, ...keys: string[]): Promise<void> {
  await waitFor(prompt);
  for (const key of keys) tmux('send-keys', '-t', SESSION, ...(['Enter', 'Down', 'Up'].includes(key) ? [key] : ['-l', key]));
}

beforeAll(async () => {
  sandbox = await startSandbox();
  env = sandbox.env('full');
});
afterEach(() => {
  try {
    tmux('kill-server');
  } catch {
    // no server left to kill
  }
});
afterAll(() => sandbox?.stop());

describe('on a terminal', () => {
  it('login asks for the key without echoing it, checks it and saves the profile', async () => {
    const configDir = tempConfigDir();
    const key = sandbox.key('full').apiKey;
    const sandboxEnv = env;
    env = { SVC_CONFIG_DIR: configDir, NO_COLOR: '1' };
    try {
      start(['login', '--profile', 'tty', '--base-url', sandbox.baseUrl]);
      await answer('API key', key, 'Enter');
      const shown = await waitFor(/EXIT=\d+/);
      expect(shown).toContain('EXIT=0');
      expect(shown).toContain('saved as profile tty');
      expect(shown).not.toContain(key);
    } finally {
      env = sandboxEnv;
    }
    const me = await svc(['--profile', 'tty', 'me'], { env: { SVC_CONFIG_DIR: configDir } });
    expect(JSON.parse(me.stdout).key.name).toBe('full');
  });

  it('links create asks for what is missing and shows the claim URL', async () => {
    start(['links', 'create']);
    await answer('Campaign (type to filter)', 'VIP');
    await answer('❯ VIP Winter Gifts', 'Enter');
    await answer('full name', 'Ada Lovelace', 'Enter');
    await answer('E-mail for order updates', 'ada@example.com', 'Enter');
    await answer('Message on the claim page', 'Enter');
    await answer('Language of the claim page', 'Down', 'Enter');
    await answer('Player ID (optional)', 'P-77', 'Enter');
    await answer('VIP tier (optional)', 'Down', 'Down', 'Down', 'Enter');
    await answer('Marketing consent (optional)', 'Down', 'Enter');
    const shown = await waitFor('EXIT=0');
    const claimUrl = /Claim URL\s+(\S+)/.exec(shown)?.[1];
    const id = /^ID\s+(\S+)/m.exec(shown)?.[1];
    expect(claimUrl).toMatch(/^https:\/\//);
    const link = jsonLines((await svc(['links', 'get', id!], { env })).stdout)[0];
    expect(link.claimUrl).toBe(claimUrl);
    expect(link.customFields.map((a: { textValue: string | null; checked: boolean | null }) => a.textValue ?? a.checked)).toEqual(['P-77', 'Gold', true]);
  });

  it('orders place walks store → gift → options → recipient, offering only orderable options', async () => {
    start(['orders', 'place']);
    await answer('? Store', 'Enter');
    await answer('? Brand', 'Enter');
    await answer('Delivery country', 'de', 'Enter');
    await answer('? Language', 'Enter');
    await answer('Apparel › Hoodie — 1100', 'Enter');
    // Large comes only in black (white is sold out), so colour is not asked after it.
    await answer('? Size', 'Down', 'Down', 'Enter');
    await answer('Recipient name', 'Ada Lovelace', 'Enter');
    await answer('Phone', '+4915112345678', 'Enter');
    await answer('Street and number', 'Hauptstr. 1', 'Enter');
    await answer('City', 'Berlin', 'Enter');
    await answer('Postal code', '10115', 'Enter');
    await answer('E-mail for status updates', 'Enter');
    await answer('Player ID (optional)', 'Enter');
    await answer('VIP tier (optional)', 'Enter');
    await answer('Marketing consent (optional)', 'Enter');
    const summary = await waitFor('Place this order for 1100 SC?');
    expect(summary).toContain('Options:    size=L, color=black');
    expect(summary).not.toContain('? Color');
    expect(summary).toContain('Color: Black (the only one orderable with what you chose)');
    await answer('Place this order for 1100 SC?', 'y', 'Enter');
    const shown = await waitFor('EXIT=0');
    expect(shown).toMatch(/Order SVC-\d+ placed: deduct 1100 SC from the player/);
    // Optional fields passed with Enter stay unanswered (no "no" recorded for the consent box).
    const [order] = jsonLines((await svc(['orders', 'ls', '--limit', '1'], { env })).stdout);
    expect(order.customFields.every((answer: { textValue: unknown; checked: unknown }) => answer.textValue === null && answer.checked === null)).toBe(true);
  });

  it('orders place shows a changed price and places again only after a yes', async () => {
    const stores = jsonLines((await svc(['stores', 'ls'], { env })).stdout);
    const live = stores.find((store) => store.phase === 'LIVE');
    const store = JSON.parse((await svc(['stores', 'show', live.id, '--brand', live.brandIds[0], '--country', 'DE', '-o', 'json'], { env })).stdout);
    const speaker = store.sections.flatMap((section: { items: unknown[] }) => section.items).find((gift: { name: string }) => gift.name === 'Smart Speaker');
    start([
      'orders', 'place', '--store', live.id, '--brand', live.brandIds[0], '--product', speaker.productId, '--variation', 'color=sand',
      '--price', '1', '--country', 'DE', '--name', 'Ada', '--phone', '+4915112345678', '--street', 'Hauptstr. 1', '--city', 'Berlin',
      '--postal-code', '10115', '--yes',
    ]);
    await answer(`Place the order again at ${speaker.coinPrice}?`, 'y', 'Enter');
    const shown = await waitFor('EXIT=0');
    expect(shown).toContain(`the order was sent at 1, the gift now costs ${speaker.coinPrice}`);
    const orders = jsonLines((await svc(['orders', 'ls'], { env })).stdout);
    expect(orders[0]).toMatchObject({ productId: speaker.productId, coinPrice: speaker.coinPrice });
  });

  it('links cancel asks for confirmation and a no cancels nothing', async () => {
    const campaign = jsonLines((await svc(['campaigns', 'ls'], { env })).stdout).find((c) => c.brandIds.length === 1);
    const link = jsonLines((await svc(['links', 'create', '--campaign', campaign.id, '--name', 'Keep Me'], { env })).stdout)[0];
    start(['links', 'cancel', link.id, '--reason', 'test']);
    await answer(`Cancel link ${link.id}?`, 'n', 'Enter');
    await waitFor('EXIT=1');
    expect(jsonLines((await svc(['links', 'get', link.id], { env })).stdout)[0].status).toBe('ACTIVE');
  });
});
