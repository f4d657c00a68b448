/**
 * Terminal safety at the command layer: a server (here the API double) plants escape sequences in
 * every kind of text svc shows, and each must reach the terminal as visible escapes, never raw.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiDouble, doubleEachTest } from '../helpers/double.js';
import { runAtTerminal, runInProcess } from '../helpers/run.js';

/** window title (OSC 0), clear screen, an OSC 8 hyperlink, BEL, C1 CSI, backspace and CR overwrite, bidi override */
const HOSTILE = 'Evil\x1b]0;pwned\x07\x1b[2J\x1b]8;;http://x.test/\x1b\\link\x1b]8;;\x1b\\\u009b31m\bX\rY\u202eZ';
const VISIBLE = String.raw`Evil\x1b]0;pwned\x07\x1b[2J\x1b]8;;http://x.test/\x1b\link\x1b]8;;\x1b\\u009b31m\x08X\x0dY\u202eZ`;
/** anything a terminal would act on */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const CAMPAIGN = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';
const BRAND = '6cf764cf-ca59-43c5-b0e6-58c6862c38f0';
const LINK = '8b23f0e7-d976-4a9a-8f5b-3a0e7b9ada6d';
const FIELD = '7f33eb38-2382-46ea-9990-8bc2195e3caa';
const STORE = '2e014dc6-c8fa-46b6-96da-f7c5012b74c8';
const PRODUCT = 'c4375538-fc25-4c43-a15d-e3bd9e8a7b16';
const ORDER = 'afbb54b2-acb6-4805-b783-ffed9f4194df';
const CREATED = '2026-11-24T06:20:07Z';

const me = {
  key: { name: HOSTILE, scopes: ['PERSONAL_LINKS'], brandIds: [BRAND], webhookUrl: null },
  tenant: { id: 'eb660b44-3152-4119-b53b-5784dc856442', locales: ['en-US'], approvalRequired: false, customFields: [{ id: FIELD, label: HOSTILE, type: 'TEXT', required: false, options: [] }] },
  brands: [{ id: BRAND, name: HOSTILE }],
  environment: 'sandbox',
};

let api: ApiDouble;
let env: Record<string, string>;

doubleEachTest((double) => {
  api = double;
  env = api.env('/nonexistent-svc-config');
});

function lines(text: string): string[] {
  return text.split('\n');
}

describe('terminal safety: what the API sends reaches a terminal as visible escapes', () => {
  it('campaigns ls: a name that would set the title, clear the screen and plant a link is shown escaped', async () => {
    api.on('GET /campaigns', { body: { items: [{ id: CAMPAIGN, name: HOSTILE, status: 'ACTIVE', brandIds: [BRAND], expiresAt: null }], nextCursor: null } });
    const result = await runAtTerminal(['campaigns', 'ls'], env, 200);
    expect(result.exitCode).toBe(0);
    const name = '─'.repeat(VISIBLE.length + 2);
    expect(lines(result.stdout)).toEqual([
      `┌${'─'.repeat(38)}┬${name}┬────────┬────────┬─────────┐`,
      `│ ID                                   │ ${'Name'.padEnd(VISIBLE.length)} │ Status │ Brands │ Expires │`,
      `│ ${CAMPAIGN} │ ${VISIBLE} │ ACTIVE │ 1      │ never   │`,
      `└${'─'.repeat(38)}┴${name}┴────────┴────────┴─────────┘`,
      '',
    ]);
    expect(result.stderr).toBe('');
  });

  it('links get: custom-field labels and answers are escaped', async () => {
    const link = {
      id: LINK, claimUrl: `https://gifts.svc.example/claim/${LINK}`, status: 'ACTIVE', campaignId: CAMPAIGN, selection: 'CAMPAIGN', brandId: BRAND,
      createdAt: CREATED, expiresAt: null, updatedAt: CREATED, customFields: [{ fieldId: FIELD, textValue: HOSTILE, checked: null }],
    };
    api.on(`GET /personal-links/${LINK}`, { body: link }).on('GET /me', { body: me });
    api.on('GET /campaigns?limit=100', { body: { items: [{ id: CAMPAIGN, name: HOSTILE, status: 'ACTIVE', brandIds: [BRAND], expiresAt: null }], nextCursor: null } });
    const result = await runAtTerminal(['links', 'get', LINK], env, 200);
    expect(result.exitCode).toBe(0);
    // Campaign and brand names (views for people) are the server's text too: escaped like the rest.
    expect(lines(result.stdout)).toEqual([
      `Claim URL  https://gifts.svc.example/claim/${LINK}`,
      `ID         ${LINK}`,
      'Status     ACTIVE',
      `Campaign   ${VISIBLE} (${CAMPAIGN})`,
      `Brand      ${VISIBLE} (${BRAND})`,
      `Created    ${CREATED}`,
      'Expires    never',
      `Updated    ${CREATED}`,
      'Custom fields',
      `  ${VISIBLE}: ${VISIBLE}`,
      '',
    ]);
  });

  it('me: the key name and brand names are escaped; at 80 columns every line fits', async () => {
    api.on('GET /me', { body: me });
    const result = await runAtTerminal(['me'], env, 80);
    expect(result.exitCode).toBe(0);
    expect(lines(result.stdout)).toEqual([
      `Key          ${VISIBLE.slice(0, 66)}…`,
      'Scopes       PERSONAL_LINKS',
      'Webhook URL  none',
      'Account      eb660b44-3152-4119-b53b-5784dc856442',
      'Locales      en-US',
      'Approval     not required',
      'Environment  sandbox',
      `Base URL     ${api.baseUrl}`,
      '',
      'Brands',
      '┌──────────────────────────────────────┬───────────────────────────────────────┐',
      '│ ID                                   │ Name                                  │',
      `│ ${BRAND} │ ${VISIBLE.slice(0, 36)}… │`,
      '└──────────────────────────────────────┴───────────────────────────────────────┘',
      '',
      'Custom fields',
      // What --field needs stays (type, required flag, options); the field id gives way, the label shrinks.
      '┌──────────────────────────────────────────────────┬──────┬──────────┬─────────┐',
      '│ Label                                            │ Type │ Required │ Options │',
      `│ ${VISIBLE.slice(0, 47)}… │ TEXT │ no       │         │`,
      '└──────────────────────────────────────────────────┴──────┴──────────┴─────────┘',
      '',
    ]);
  });

  it('orders get and stores show: gift, section, option and description text is escaped', async () => {
    const order = {
      id: ORDER, reference: 'R-1', status: 'SENT', productName: HOSTILE, variations: { size: HOSTILE }, coinPrice: '1100', currency: { name: 'Coins', symbol: '' },
      deliveryCountry: 'DE', storeId: STORE, brandId: BRAND, createdAt: CREATED, updatedAt: CREATED,
      shipment: { carrier: HOSTILE, trackingReference: null, trackingUrl: null }, customFields: [],
    };
    api.on(`GET /reward-store-orders/${ORDER}`, { body: order }).on('GET /me', { body: me });
    const got = await runAtTerminal(['orders', 'get', ORDER], env, 400);
    expect(got.exitCode).toBe(0);
    expect(lines(got.stdout)).toContain(`Gift       ${VISIBLE} (size=${VISIBLE})`);
    expect(lines(got.stdout)).toContain(`Shipment   ${VISIBLE}`);
    expect(got.stdout).not.toMatch(RAW_CONTROL);

    const store = {
      id: STORE, name: HOSTILE, description: `${HOSTILE}\nsecond line`, phase: 'LIVE', startsAt: null, endsAt: null, brand: { id: BRAND, name: HOSTILE },
      country: 'DE', locale: 'en-US', currency: { name: 'Coins', symbol: '' },
      sections: [{ name: HOSTILE, items: [{ productId: PRODUCT, name: HOSTILE, coinPrice: '1100', dimensions: [{ name: 'size', label: HOSTILE, values: [{ value: 'M', label: HOSTILE }] }], combinations: [{ variations: { size: 'M' } }] }] }],
    };
    api.on(`GET /reward-stores/${STORE}?brandId=${BRAND}&country=DE`, { body: store });
    const shown = await runAtTerminal(['stores', 'show', STORE, '--brand', BRAND, '--country', 'DE'], env, 400);
    expect(shown.exitCode).toBe(0);
    const out = lines(shown.stdout);
    expect(out.slice(0, 5)).toEqual([`${VISIBLE}  ${STORE}`, `LIVE · ${VISIBLE} · DE · en-US · prices in Coins`, '', VISIBLE, 'second line']);
    expect(out).toContain('');
    expect(out.some((line) => line.startsWith(`│ ${VISIBLE} │ 1100 Coins │ ${VISIBLE} (size): ${VISIBLE}=M │ size=M `))).toBe(true);
    expect(shown.stdout).not.toMatch(RAW_CONTROL);
  });

  it('errors: detail, field errors, an unknown code and a hint are escaped, each on its own line', async () => {
    api.on(`GET /personal-links/${LINK}`, {
      status: 422,
      body: { status: 422, code: `odd\x1b[2J`, detail: HOSTILE, errors: [{ field: `f\x1b]0;t\x07`, code: 'bad', message: `line1\nline2${HOSTILE}` }, null] },
    });
    const result = await runAtTerminal(['links', 'get', LINK], env, 80);
    expect(result.exitCode).toBe(1);
    expect(lines(result.stderr)).toEqual([
      String.raw`error: odd\x1b[2J: ` + VISIBLE,
      String.raw`  f\x1b]0;t\x07: bad: line1\nline2` + VISIBLE,
      '  : : ',
      '',
    ]);
  });

  it('errors: the HTML body of a misbehaving proxy is quoted escaped', async () => {
    api.on(`GET /personal-links/${LINK}`, { status: 502, body: `<html><title>${HOSTILE}</title></html>` });
    const result = await runAtTerminal(['--max-retries', '0', 'links', 'get', LINK], env, 80);
    expect(result.exitCode).toBe(5);
    // The quoted body has its white space (the CR too) folded to single spaces.
    expect(lines(result.stderr)).toEqual([`error: http_502: HTTP 502 with a non-JSON body (text/html): <html><title>${VISIBLE.replace(String.raw`\x0d`, ' ')}</title></html> (after 1 attempt)`, '']);
  });

  it('errors with -o jsonl: one JSON line, C1 and bidi controls escaped, the same data', async () => {
    const problem = { status: 409, code: 'conflict', detail: HOSTILE };
    api.on(`GET /personal-links/${LINK}`, { status: 409, body: problem });
    const result = await runAtTerminal(['-o', 'jsonl', 'links', 'get', LINK], env, 80);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(String.raw`{"status":409,"code":"conflict","detail":"Evil\u001b]0;pwned\u0007\u001b[2J\u001b]8;;http://x.test/\u001b\\link\u001b]8;;\u001b\\\u009b31m\bX\rY\u202eZ"}` + '\n');
    expect(JSON.parse(result.stderr)).toEqual(problem);
  });

  it('-o jsonl and -o json keep the data exact, writing U+007F–U+009F as \\u00XX', async () => {
    const campaign = { id: CAMPAIGN, name: 'a\u009b2Jb\u007fc\u0085d', status: 'ACTIVE', brandIds: [BRAND], expiresAt: null };
    api.on('GET /campaigns', { body: { items: [campaign], nextCursor: null } });
    const jsonl = await runInProcess(['-o', 'jsonl', 'campaigns', 'ls'], env);
    expect(jsonl.stdout).toBe(`{"id":"${CAMPAIGN}","name":"a\\u009b2Jb\\u007fc\\u0085d","status":"ACTIVE","brandIds":["${BRAND}"],"expiresAt":null}\n`);
    expect(JSON.parse(jsonl.stdout)).toEqual(campaign);
    const json = await runInProcess(['-o', 'json', 'campaigns', 'ls'], env);
    expect(json.stdout).toContain('"name": "a\\u009b2Jb\\u007fc\\u0085d",');
    expect(JSON.parse(json.stdout)).toEqual([campaign]);
  });

  it('svc api on a terminal: C1 and bidi controls escaped; to a pipe the same JSON, data exact', async () => {
    const body = { name: `x\u009b31m\u202ey\x1b[2J` };
    api.on('GET /me', { body });
    const terminal = await runAtTerminal(['api', 'GET', '/me'], env, 80);
    expect(terminal.stdout).toBe('{\n  "name": "x\\u009b31m\\u202ey\\u001b[2J"\n}\n');
    const piped = await runInProcess(['api', 'GET', '/me'], env);
    expect(piped.stdout).toBe('{"name":"x\\u009b31m\u202ey\\u001b[2J"}\n');
    expect(JSON.parse(piped.stdout)).toEqual(body);
  });

  it('verify-signature: the header\'s parts are shown escaped in the evidence and the error line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-verify-'));
    try {
      writeFileSync(join(dir, 'body.json'), '{}');
      const header = `t=1763719200,v1=${'0'.repeat(64)},\u009b2J\x1b]0;t\x07=1`;
      const result = await runAtTerminal(['verify-signature', '--header', header, '--payload-file', join(dir, 'body.json'), '--now', '1763719200'], { ...env, SVC_WEBHOOK_SECRET: 'whsec_test' }, 80);
      expect(result.exitCode).toBe(1);
      const verdict = String.raw`malformed_header: malformed header: pair 3 "\u009b2J\u001b]0;t\u0007=1" is not name=value`;
      expect(lines(result.stdout)[0]).toBe(`✗ invalid: ${verdict}`);
      expect(result.stderr).toBe(`error: invalid_signature: ${verdict}\n`);
      expect(result.stdout + result.stderr).not.toMatch(RAW_CONTROL);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--debug: the response lines quoting the server are escaped too', async () => {
    api.on(`GET /personal-links/${LINK}`, { status: 404, body: { status: 404, code: 'not_found', detail: HOSTILE } });
    const result = await runAtTerminal(['--debug', 'links', 'get', LINK], env, 80);
    expect(result.exitCode).toBe(3);
    const lines = result.stderr.split('\n');
    expect(lines).toContain(`< {"status":404,"code":"not_found","detail":"Evil\\u001b]0;pwned\\u0007\\u001b[2J\\u001b]8;;http://x.test/\\u001b\\\\link\\u001b]8;;\\u001b\\\\\\u009b31m\\bX\\rY\\u202eZ"}`);
    expect(lines).toContain(`error: not_found: ${VISIBLE}`);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
  });

  it('a usage error quoting what was typed shows it escaped', async () => {
    const result = await runInProcess(['links', 'get', `x\x1b]0;t\x07`], env);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(String.raw`error: usage_error: ID: not a valid id (expected a UUID): x\x1b]0;t\x07` + '\n');
  });
});

describe('terminal safety: values planted through the sandbox admin API', () => {
  it('links get shows a hostile custom-field answer escaped, and -o json keeps it exact', async () => {
    const { startSandbox } = await import('../sandbox/helpers.js');
    const sb = await startSandbox();
    try {
      const field = sb.sandbox.state.tenant.customFields.find((f) => f.type === 'TEXT')!;
      const campaign = (await sb.api('GET', '/campaigns')).body.items[0] as { id: string; brandIds: string[] };
      const created = await sb.admin('POST', '/links', { campaignId: campaign.id, brandId: campaign.brandIds[0], fullName: HOSTILE, customFields: [{ fieldId: field.id, textValue: HOSTILE }] });
      expect(created.status).toBe(201);
      const sandboxEnv = { SVC_API_KEY: sb.apiKey('full'), SVC_BASE_URL: sb.info.baseUrl, SVC_CONFIG_DIR: '/nonexistent-svc-config' };
      const shown = await runAtTerminal(['links', 'get', created.body.id], sandboxEnv, 200);
      expect(shown.exitCode).toBe(0);
      expect(lines(shown.stdout)).toContain(`  ${field.label}: ${VISIBLE}`);
      expect(shown.stdout).not.toMatch(RAW_CONTROL);
      const json = await runAtTerminal(['-o', 'json', 'links', 'get', created.body.id], sandboxEnv, 200);
      expect(JSON.parse(json.stdout).customFields).toContainEqual({ fieldId: field.id, textValue: HOSTILE, checked: null });
      expect(json.stdout).not.toMatch(RAW_CONTROL);
    } finally {
      await sb.close();
    }
  });
});
