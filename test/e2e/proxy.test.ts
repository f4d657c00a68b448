/**
 * Proxies and extra CAs end to end, on loopback only: a CONNECT proxy (it counts the tunnels it opens
 * and resolves the one test name, api.svc.test, to 127.0.0.1 itself) and an HTTPS front, whose
 * certificate a test CA made here with openssl signed, in front of the in-process sandbox. svc runs as
 * a real process (NODE_EXTRA_CA_CERTS is read at start-up) with a preload that answers the test name
 * with 127.0.0.1 and refuses every other name, so no DNS query ever leaves the machine.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeLater, tempDir } from '../helpers/cleanup.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { svc } from '../helpers/svc.js';

const NAME = 'api.svc.test';
const PROXY_USER = 'proxy-user';
const PROXY_PASSWORD = 'pr0xy-Pa55word';
const SECRET = 'whsec_proxy_test_secret_0123456789';

let sandbox: InProcessSandbox;
let dir: string;
let frontPort: number;
let proxyPort: number;
/** every CONNECT the proxy saw: target and Proxy-Authorization */
let tunnels: { target: string; auth: string | undefined }[];
/** deliveries the front took at /hook (forward and replay) */
let hooks: { body: string; signature: string | undefined }[];

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

beforeAll(async () => {
  sandbox = await startSandbox();
  dir = tempDir();
  // A test CA and a server certificate it signs for the test name and the loopback names.
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=svc test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${NAME}`);
  writeFileSync(join(dir, 'server.ext'), `subjectAltName=DNS:${NAME},DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`);
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext');

  // The HTTPS front: /hook takes deliveries; everything else goes on to the sandbox.
  const sandboxUrl = new URL(sandbox.baseUrl);
  const front = createHttpsServer({ key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) }, (req, res) => {
    if (req.url?.startsWith('/hook')) {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        hooks.push({ body, signature: req.headers['svc-signature'] as string | undefined });
        res.writeHead(204).end();
      });
      return;
    }
    const upstream = httpRequest({ host: '127.0.0.1', port: sandboxUrl.port, path: req.url, method: req.method, headers: { ...req.headers, host: sandboxUrl.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  frontPort = (front.address() as AddressInfo).port;

  // The CONNECT proxy: wants Basic credentials; maps the test name to 127.0.0.1; nothing else.
  const sockets = new Set<Socket>();
  const proxy = createHttpServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req, client: Socket, head: Buffer) => {
    sockets.add(client);
    const auth = req.headers['proxy-authorization'];
    tunnels.push({ target: req.url ?? '', auth });
    const [host, port] = (req.url ?? '').split(':');
    if (auth !== `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    if (host !== NAME) {
      client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const target = connect(Number(port), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      target.write(head);
      target.pipe(client);
      client.pipe(target);
    });
    sockets.add(target);
    target.on('error', () => client.destroy());
    client.on('error', () => target.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyPort = (proxy.address() as AddressInfo).port;
  closeLater(async () => {
    for (const socket of sockets) socket.destroy();
    front.closeAllConnections();
    await Promise.all([new Promise((resolve) => front.close(resolve)), new Promise((resolve) => proxy.close(resolve))]);
  });

  // The preload: the test name is 127.0.0.1 for svc too (only when it connects directly, under
  // NO_PROXY); any other name that is not an address fails at once, without asking DNS.
  writeFileSync(
    join(dir, 'hosts.mjs'),
    `import dns from 'node:dns';
const original = dns.lookup;
dns.lookup = function (host, options, callback) {
  if (typeof options === 'function') { callback = options; options = {}; }
  if (typeof options === 'number') options = { family: options };
  if (host === ${JSON.stringify(NAME)}) {
    return process.nextTick(() => options && options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4));
  }
  if (host === 'localhost' || /^[\\d.]+$|:/.test(host)) return original.call(this, host, options, callback);
  const error = Object.assign(new Error('getaddrinfo ENOTFOUND ' + host), { code: 'ENOTFOUND', hostname: host });
  process.nextTick(() => callback(error));
};
`,
  );
});

beforeEach(() => {
  tunnels = [];
  hooks = [];
});

const proxyUrl = (password = PROXY_PASSWORD) => `http://${PROXY_USER}:${password}@127.0.0.1:${proxyPort}`;
const NO_PROXY_VARS = { HTTPS_PROXY: undefined, https_proxy: undefined, HTTP_PROXY: undefined, http_proxy: undefined, NO_PROXY: undefined, no_proxy: undefined };

function run(args: string[], env: Record<string, string | undefined>) {
  return svc(args, {
    env: {
      ...NO_PROXY_VARS,
      NODE_OPTIONS: `--import ${pathToFileURL(join(dir, 'hosts.mjs')).href}`,
      NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
      SVC_CONFIG_DIR: tempDir(),
      SVC_API_KEY: sandbox.key('full').apiKey,
      SVC_BASE_URL: `https://${NAME}:${frontPort}/v1`,
      ...env,
    },
  });
}

async function meLine(): Promise<string> {
  const response = await fetch(`${sandbox.baseUrl}/me`, { headers: { authorization: `Bearer ${sandbox.key('full').apiKey}` } });
  return `${JSON.stringify(await response.json())}\n`;
}

function expectNoCredentials(text: string): void {
  expect(text).not.toContain(PROXY_PASSWORD);
  expect(text).not.toContain(encodeURIComponent(PROXY_PASSWORD));
  expect(text).not.toContain(PROXY_USER);
}

describe('proxies and extra CAs', () => {
  it('HTTPS_PROXY: `svc me` goes through one CONNECT tunnel to the HTTPS front (test CA from NODE_EXTRA_CA_CERTS); --debug names the proxy without its credentials', async () => {
    const result = await run(['--debug', 'me'], { HTTPS_PROXY: proxyUrl() });
    expect({ exitCode: result.exitCode, stdout: result.stdout }).toEqual({ exitCode: 0, stdout: (await meLine()).trimEnd() });
    expect(tunnels).toEqual([{ target: `${NAME}:${frontPort}`, auth: `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}` }]);
    expect(result.stderr.split('\n')[0]).toBe(`* proxy: https via http://[redacted]@127.0.0.1:${proxyPort}; not for localhost,127.0.0.1,[::1],::1`);
    expectNoCredentials(result.stdout + result.stderr);
  });

  it('the lower-case form works too, and wins over the upper-case one', async () => {
    const result = await run(['me'], { https_proxy: proxyUrl(), HTTPS_PROXY: 'http://127.0.0.1:9' });
    expect(result.exitCode).toBe(0);
    expect(tunnels.map((t) => t.target)).toEqual([`${NAME}:${frontPort}`]);
  });

  it('NO_PROXY: a matching host is reached directly, no tunnel', async () => {
    const result = await run(['me'], { HTTPS_PROXY: proxyUrl(), NO_PROXY: `.svc.test` });
    expect({ exitCode: result.exitCode, stdout: `${result.stdout}\n` }).toEqual({ exitCode: 0, stdout: await meLine() });
    expect(tunnels).toEqual([]);
  });

  it('loopback hosts are never proxied, whatever NO_PROXY says', async () => {
    for (const host of ['localhost', '127.0.0.1']) {
      const result = await run(['me'], { HTTPS_PROXY: proxyUrl(), NO_PROXY: 'example.test', SVC_BASE_URL: `https://${host}:${frontPort}/v1` });
      expect({ host, exitCode: result.exitCode }).toEqual({ host, exitCode: 0 });
    }
    expect(tunnels).toEqual([]);
  });

  it('without the extra CA the front is not trusted: exit 5 at once with a hint, and the proxy credentials are still not shown', async () => {
    const result = await run(['--debug', 'me'], { HTTPS_PROXY: proxyUrl(), NODE_EXTRA_CA_CERTS: undefined });
    expect(result.exitCode).toBe(5);
    expect(result.stderr).toMatch(/\nerror: connection_error: could not reach https:\/\/api\.svc\.test:\d+: unable to verify the first certificate(; [^\n]*)?\nhint: if your company's proxy or CA signs this certificate, point NODE_EXTRA_CA_CERTS at its PEM file\n/);
    // Not retried: one tunnel.
    expect(tunnels).toHaveLength(1);
    expectNoCredentials(result.stdout + result.stderr);
  });

  it('a proxy that refuses the credentials: exit 5 with an error that does not repeat them', async () => {
    const result = await run(['--max-retries', '0', 'me'], { HTTPS_PROXY: proxyUrl('wrong-Pa55word') });
    expect(result.exitCode).toBe(5);
    expect(result.stderr).toMatch(/^error: connection_error: could not reach https:\/\/api\.svc\.test:\d+: .*407/);
    expect(result.stdout + result.stderr).not.toContain('wrong-Pa55word');
    expectNoCredentials(result.stdout + result.stderr);
    // doctor says what failed, without them either.
    const doctor = await run(['--max-retries', '0', 'doctor'], { HTTPS_PROXY: proxyUrl('wrong-Pa55word') });
    expect(doctor.exitCode).toBe(1);
    expect(doctor.stdout).toMatch(/"check":"api","ok":false/);
    expect(doctor.stdout + doctor.stderr).not.toContain('wrong-Pa55word');
    expectNoCredentials(doctor.stdout + doctor.stderr);
  });

  it('a proxy URL that does not parse is a usage error that does not repeat it', async () => {
    const result = await run(['me'], { HTTPS_PROXY: `::${PROXY_PASSWORD}::` });
    expect({ exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr }).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: 'error: usage_error: HTTPS_PROXY: not a URL (expected http://[user:password@]host:port)',
    });
  });

  it('--forward-to and webhooks replay go through the proxy too', async () => {
    const created = await fetch(`${sandbox.baseUrl}/personal-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.key('full').apiKey}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ campaignId: ((await (await fetch(`${sandbox.baseUrl}/campaigns`, { headers: { authorization: `Bearer ${sandbox.key('full').apiKey}` } })).json()) as { items: { id: string; status: string; brandIds: string[] }[] }).items.find((c) => c.status === 'ACTIVE' && c.brandIds.length === 1)!.id, fullName: 'Proxy Player' }),
    });
    expect(created.status).toBe(201);
    // The API itself on loopback (never proxied); the receiver behind the proxy.
    const tail = await run(['events', 'tail', '--forward-to', `https://${NAME}:${frontPort}/hook`], { HTTPS_PROXY: proxyUrl(), SVC_BASE_URL: sandbox.baseUrl, SVC_WEBHOOK_SECRET: SECRET });
    expect(tail.exitCode).toBe(0);
    expect(hooks.length).toBeGreaterThan(0);
    expect(tunnels.length).toBeGreaterThan(0);
    expect(new Set(tunnels.map((t) => t.target))).toEqual(new Set([`${NAME}:${frontPort}`]));
    expectNoCredentials(tail.stdout + tail.stderr);

    const file = join(tempDir(), 'evt.json');
    writeFileSync(file, JSON.stringify({ receivedAt: '2026-11-21T10:00:00.000Z', headers: { 'content-type': 'application/json', 'svc-event-id': 'evt_1' }, body: '{"id":"evt_1"}', verdict: { valid: true, status: 200 } }));
    hooks = [];
    tunnels = [];
    const replay = await run(['webhooks', 'replay', file, '--to', `https://${NAME}:${frontPort}/hook`], { HTTPS_PROXY: proxyUrl(), SVC_WEBHOOK_SECRET: SECRET });
    expect(replay.exitCode).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ eventId: 'evt_1', status: 204, ok: true });
    expect(hooks.map((h) => h.body)).toEqual(['{"id":"evt_1"}']);
    expect(tunnels.map((t) => t.target)).toEqual([`${NAME}:${frontPort}`]);
  });
});
