#!/usr/bin/env node
// The README's main job: start the sandbox, take a short real tour of svc against it, stop it.
// Everything runs the real bin/svc; the config lives in a temp dir so your own profiles are untouched.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const bin = resolve(import.meta.dirname, '../bin/svc.js');
const configDir = mkdtempSync(join(tmpdir(), 'svc-demo-'));
const env = { ...process.env, SVC_CONFIG_DIR: configDir, SVC_PROFILE: 'sandbox' };
delete env.SVC_API_KEY;
delete env.SVC_BASE_URL;

const bold = (text) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${text}\x1b[0m` : text);
const quote = (arg) => (/^[\w./:@=+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`);

/** Shows the command, runs it with its output on the terminal, fails the demo if it fails. */
function show(title, args) {
  console.log(`\n${bold(`# ${title}`)}\n$ svc ${args.map(quote).join(' ')}`);
  execFileSync(process.execPath, [bin, ...args], { env, stdio: 'inherit' });
}

/** Runs a command for its JSON, to carry ids from one step to the next. */
function json(args) {
  return JSON.parse(execFileSync(process.execPath, [bin, ...args, '-o', 'json'], { env, encoding: 'utf8' }));
}

const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
let sandboxLog = '';
sandbox.stderr.on('data', (chunk) => (sandboxLog += chunk));
const stop = () => {
  if (sandbox.exitCode === null) sandbox.kill('SIGTERM');
};
process.on('exit', () => {
  stop();
  rmSync(configDir, { recursive: true, force: true });
});

try {
  const ready = await new Promise((resolveReady, reject) => {
    createInterface({ input: sandbox.stdout }).once('line', resolveReady);
    sandbox.once('exit', (code) => reject(new Error(`sandbox exited with ${code}\n${sandboxLog}`)));
  });
  const { baseUrl, adminUrl } = JSON.parse(ready);
  console.log(`${bold('svc sandbox')} is running at ${baseUrl} and saved the profile "sandbox".`);

  show('Who am I? The key, its scopes, the account and its brands', ['me', '-o', 'table']);
  show('Campaigns the key can send links for', ['campaigns', 'ls', '-o', 'table']);

  const campaign = json(['campaigns', 'ls']).find((c) => c.brandIds.length === 1) ?? json(['campaigns', 'ls'])[0];
  const link = json(['links', 'create', '--campaign', campaign.id, '--brand', campaign.brandIds[0], '--name', 'Ada Lovelace', '--email', 'ada@example.com', '--message', 'Thanks for playing!']);
  console.log(`\n${bold('# Send a player a personal gift link')}\n$ svc links create --campaign ${campaign.id} --name 'Ada Lovelace' --email ada@example.com …`);
  console.log(`created ${link.id}: ${link.claimUrl}  (the player's gift page: open it in a browser while the sandbox runs)`);
  show('Read it back', ['links', 'get', link.id, '-o', 'table']);

  show('Rewards stores', ['stores', 'ls', '-o', 'table']);
  const store = json(['stores', 'ls']).find((s) => s.phase === 'LIVE');
  const brandId = store.brandIds[0];
  show('A LIVE store as a player in Germany sees it', ['stores', 'show', store.id, '--brand', brandId, '--country', 'DE', '-o', 'table']);

  const detail = json(['stores', 'show', store.id, '--brand', brandId, '--country', 'DE']);
  const gifts = detail.sections.flatMap((section) => section.items);
  const gift = gifts.find((g) => g.dimensions.length === 0) ?? gifts[0];
  const variations = gift.combinations[0]?.variations ?? {};
  show('Place a gift order for the player (the operator deducts coinPrice on 201)', [
    'orders', 'place', '--store', store.id, '--brand', brandId, '--product', gift.productId,
    ...Object.entries(variations).flatMap(([name, value]) => ['--variation', `${name}=${value}`]),
    '--price', gift.coinPrice, '--country', 'DE', '--name', 'Ada Lovelace', '--phone', '+4915112345678',
    '--street', 'Hauptstraße 1', '--city', 'Berlin', '--postal-code', '10115', '--yes', '-o', 'table',
  ]);

  const order = json(['orders', 'ls'])[0];
  console.log(`\n${bold('# The fulfilment team ships the order')} (the workspace at ${adminUrl}/orders has a Ship form; here, the same admin call)\n$ curl -X POST ${adminUrl}/orders/${order.id}/ship`);
  const shipped = await fetch(`${adminUrl}/orders/${order.id}/ship`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ carrier: 'DHL', trackingReference: 'JD0001', trackingUrl: 'https://tracking.example/JD0001' }),
  });
  if (!shipped.ok) throw new Error(`ship failed: ${shipped.status} ${await shipped.text()}`);

  show('The events this produced', ['events', 'tail', '-o', 'table']);
  show('The same feed as an incident chart: events per type per hour', ['events', 'stats', '-o', 'table']);
  console.log(`\n${bold('Done.')} Try it yourself: ./bin/svc sandbox & then ./bin/svc --profile sandbox --help (the README's quick start)`);
} catch (error) {
  console.error(`demo failed: ${error.message}`);
  process.exitCode = 1;
} finally {
  stop();
}
