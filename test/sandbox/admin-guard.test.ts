/**
 * The key-less admin API answers only requests addressed to a loopback Host and without a foreign
 * Origin; webhook URLs set through it are https:// or loopback http://; keys are random without a seed.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/app.js';
import { exposureWarning } from '../../src/sandbox/command.js';
import { startSandbox, type TestSandbox } from './helpers.js';

let sb: TestSandbox;
let port: number;
beforeAll(async () => {
  sb = await startSandbox();
  port = Number(new URL(sb.info.adminUrl).port);
});
afterAll(async () => sb.close());

/** A raw request to the sandbox on 127.0.0.1 with exactly these headers (fetch cannot set Host). */
function raw(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, setHost: false }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The cases are written before the port is known: PORT stands for it. */
const withPort = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value.replace('PORT', String(port))]));

describe('admin API guard', () => {
  it.each([
    ['localhost with the port', { host: `localhost:PORT` }],
    ['127.0.0.1 with the port', { host: `127.0.0.1:PORT` }],
    ['127.1.2.3 without a port', { host: '127.1.2.3' }],
    ['[::1] with the port', { host: `[::1]:PORT` }],
    ['a loopback Origin', { host: `127.0.0.1:PORT`, origin: 'http://localhost:3000' }],
  ])('answers %s', async (_name, headers) => {
    const reply = await raw('GET', '/_sandbox/clock', withPort(headers));
    expect(reply.status).toBe(200);
    expect(Object.keys(JSON.parse(reply.body))).toEqual(['now']);
  });

  it.each([
    ['a rebinding Host', { host: `evil.example:PORT` }, 'The admin API answers only requests addressed to a loopback host (localhost, 127.0.0.1, [::1]).'],
    ['a Host that only starts like localhost', { host: `localhost.evil.example:PORT` }, 'The admin API answers only requests addressed to a loopback host (localhost, 127.0.0.1, [::1]).'],
    ['a private-address Host', { host: `192.168.1.10:PORT` }, 'The admin API answers only requests addressed to a loopback host (localhost, 127.0.0.1, [::1]).'],
    ['a foreign Origin', { host: `127.0.0.1:PORT`, origin: 'https://evil.example' }, 'The admin API refuses requests from another site (its Origin is not a loopback address).'],
    ['Origin null', { host: `127.0.0.1:PORT`, origin: 'null' }, 'The admin API refuses requests from another site (its Origin is not a loopback address).'],
  ])('refuses %s with a 403 problem, before anything changes', async (_name, headers, detail) => {
    const reply = await raw('POST', '/_sandbox/clock', withPort(headers), JSON.stringify({ advanceSeconds: 86_400 }));
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.body)).toMatchObject({ status: 403, code: 'forbidden', detail });
    const clock = await raw('GET', '/_sandbox/clock', withPort({ host: '127.0.0.1:PORT' }));
    // The clock did not move a day: the refused request changed nothing.
    expect(Math.abs(Date.parse(`${JSON.parse(clock.body).now.slice(0, 19)}Z`) - Date.now())).toBeLessThan(3_600_000);
  });
});

describe('webhook URLs set through the admin API', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.5/hooks',
    'http://192.168.0.1/hooks',
    'http://example.com/hooks',
    'http://[fd00::1]/hooks',
    'ftp://127.0.0.1/hooks',
  ])('refuses %s', async (webhookUrl) => {
    const reply = await sb.admin('PATCH', '/keys/other', { webhookUrl });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([{ field: 'webhookUrl', code: 'invalid', message: 'webhookUrl must be an https:// URL, an http:// URL to a loopback host, or null.' }]);
    expect((await sb.admin('GET', '/deliveries')).body.items).toEqual([]);
  });

  it.each(['https://hooks.example.com/svc', 'http://127.0.0.1:9/hooks', 'http://localhost:9/hooks', 'http://[::1]:9/hooks', null])('accepts %s', async (webhookUrl) => {
    const reply = await sb.admin('PATCH', '/keys/other', { webhookUrl });
    expect(reply.status).toBe(200);
    expect(reply.body.webhookUrl).toBe(webhookUrl);
  });
});

describe('keys', () => {
  it('are random without a seed, the same for the same seed; other seeded data stays the same', () => {
    const keysOf = (sandbox: ReturnType<typeof createSandbox>) => sandbox.state.keys.map((key) => [key.apiKey, key.webhookSecret]);
    const [a, b, c, d] = [createSandbox({ seed: 3, randomKeys: true }), createSandbox({ seed: 3, randomKeys: true }), createSandbox({ seed: 3 }), createSandbox({ seed: 3 })];
    try {
      expect(keysOf(a)).not.toEqual(keysOf(b));
      expect(keysOf(c)).toEqual(keysOf(d));
      expect(keysOf(a).flat().some((value) => keysOf(c).flat().includes(value))).toBe(false);
      for (const [apiKey, secret] of keysOf(a)) {
        expect(apiKey).toMatch(/^svc_live_[A-Za-z0-9]{32}$/);
        expect(secret).toMatch(/^[0-9a-f]{64}$/);
      }
      expect(a.state.campaigns.map((x) => x.id)).toEqual(c.state.campaigns.map((x) => x.id));
    } finally {
      for (const sandbox of [a, b, c, d]) sandbox.close();
    }
  });
});

describe('--host warning', () => {
  const interfaces = {
    lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
    eth0: [
      { address: '192.168.1.20', family: 'IPv4', internal: false },
      { address: 'fe80::1', family: 'IPv6', internal: false },
    ],
  } as unknown as NodeJS.Dict<import('node:os').NetworkInterfaceInfo[]>;
  const address = { address: '0.0.0.0', family: 'IPv4', port: 4010 };

  it('is silent for loopback hosts', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.0.0.2']) expect(exposureWarning(host, address, interfaces)).toEqual([]);
  });

  it('warns for 0.0.0.0 and prints the URLs that reach it', () => {
    expect(exposureWarning('0.0.0.0', address, interfaces)).toEqual([
      'warning: --host 0.0.0.0 is not a loopback address: others who can reach this machine can use this sandbox and its keys, and its key-less admin API (/_sandbox) is exposed to them, guarded only by its loopback checks (client address, Host, Origin); keep the default 127.0.0.1 unless you need this.',
      'warning: reachable at http://192.168.1.20:4010/v1 (admin API http://192.168.1.20:4010/_sandbox)',
    ]);
    expect(exposureWarning('192.168.1.20', address, interfaces).slice(1)).toEqual(['warning: reachable at http://192.168.1.20:4010/v1 (admin API http://192.168.1.20:4010/_sandbox)']);
  });
});
