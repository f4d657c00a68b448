/**
 * `svc webhooks listen` as a support tool and under hostile input: one line per delivery, every
 * delivery saved byte for byte (--save-dir), verified ones relayed unchanged (--forward-to), a 9 MB
 * forgery refused with 413 without stalling the next good delivery. A spawned process: only a real
 * server shows how it answers while another request is still arriving.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryUrl } from '../../src/core/net.js';
import { fileNameFor } from '../../src/features/webhooks/saver.js';
import { BIN, svc, tempConfigDir } from '../helpers/svc.js';
import { until } from '../helpers/wait.js';

const SECRET = 'c'.repeat(64);
const hmac = (message: string | Buffer) => createHmac('sha256', SECRET).update(message).digest('hex');
const signed = (body: string | Buffer, t = Math.floor(Date.now() / 1000)) => `t=${t},v1=${hmac(Buffer.concat([Buffer.from(`${t}.`), Buffer.from(body)]))}`;
const ISO = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`;

let child: ChildProcess;
let url: string;
let saveDir: string;
const stdout: string[] = [];
const stderr: string[] = [];
let receiver: Server;
let receiverUrl: string;
const relayed: { headers: IncomingHttpHeaders; body: Buffer }[] = [];

/** Waits for the listener (stderr so far, when it fails). */
const untilListener = (check: () => boolean) => until(check, () => `stderr so far:\n${stderr.join('\n')}`);
const post = (body: string | Buffer, headers: Record<string, string>) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      relayed.push({ headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
  saveDir = join(tempConfigDir(), 'deliveries');
  child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', '0', '-o', 'jsonl', '--save-dir', saveDir, '--forward-to', receiverUrl], {
    env: { ...process.env, SVC_CONFIG_DIR: tempConfigDir(), SVC_WEBHOOK_SECRET: SECRET, NO_COLOR: '1' },
  });
  createInterface({ input: child.stdout! }).on('line', (line) => stdout.push(line));
  url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      stderr.push(line);
      const ready = /^Ready: (http:\/\/\S+)$/.exec(line);
      if (ready) resolve(ready[1]);
    });
    child.once('exit', (code) => reject(new Error(`listen exited with ${code}`)));
  });
});
afterAll(async () => {
  if (child?.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  }
  await new Promise((resolve) => receiver?.close(resolve));
});

const savedFiles = () => readdirSync(saveDir).sort();
const saved = (name: string) => JSON.parse(readFileSync(join(saveDir, name), 'utf8'));

describe('webhooks listen --save-dir --forward-to', () => {
  it('prints one line per delivery, saves each byte for byte, relays only the verified one unchanged', async () => {
    // Pretty-printed, non-ASCII, a trailing newline: the saved text must be exactly these bytes.
    const body = `{\n  "id": "evt_1",\n  "type": "order.sent",\n  "occurredAt": "2026-11-21T10:00:00.000000Z",\n  "environment": "production",\n  "data": { "id": "o1", "note": "Zoë 🎁" }\n}\n`;
    const signature = signed(body);
    const good = await post(body, { 'svc-signature': signature, 'svc-event-id': 'evt_1' });
    expect([good.status, await good.json()]).toEqual([200, { received: true }]);
    const tamperedBody = body.replace('order.sent', 'order.cancelled');
    const tampered = await post(tamperedBody, { 'svc-signature': signature, 'svc-event-id': 'evt_1' });
    expect(tampered.status).toBe(400);
    await untilListener(() => stderr.filter((line) => line.includes('evt_1')).length >= 3 && savedFiles().length >= 2);

    // Deliveries are shown in arrival order; the relay's line comes whenever the receiver answers.
    const lines = stderr.filter((line) => line.includes('evt_1'));
    expect(lines.filter((line) => !line.startsWith('→'))).toEqual([
      expect.stringMatching(new RegExp(`^${ISO}  evt_1  order\\.sent  ✓ verified$`)),
      expect.stringMatching(new RegExp(`^${ISO}  evt_1  order\\.cancelled  ✗ no_matching_signature: .+$`)),
    ]);
    expect(lines.filter((line) => line.startsWith('→'))).toEqual([`→ forwarded evt_1 to ${receiverUrl}: 202`]);
    expect(savedFiles().filter((name) => name.startsWith('evt_1'))).toEqual(['evt_1.2.json', 'evt_1.json']);
    const first = saved('evt_1.json');
    expect(first).toEqual({
      receivedAt: expect.stringMatching(new RegExp(`^${ISO}$`)),
      headers: expect.objectContaining({ 'svc-signature': signature, 'svc-event-id': 'evt_1', 'content-type': 'application/json' }),
      body,
      verdict: { valid: true, status: 200 },
    });
    const second = saved('evt_1.2.json');
    expect(second.body).toBe(tamperedBody);
    expect(second.verdict).toEqual({ valid: false, status: 400, reason: 'no_matching_signature', detail: expect.any(String) });
    expect(statSync(join(saveDir, 'evt_1.json')).mode & 0o777).toBe(0o600);
    expect(statSync(saveDir).mode & 0o777).toBe(0o700);

    expect(relayed).toHaveLength(1);
    expect(relayed[0].body.equals(Buffer.from(body))).toBe(true);
    expect(relayed[0].headers).toMatchObject({ 'svc-signature': signature, 'svc-event-id': 'evt_1', 'content-type': 'application/json' });
    expect(stdout).toContain(JSON.stringify(JSON.parse(body)));
  });

  it('webhooks replay sends a delivery listen saved again, byte for byte, signed afresh', async () => {
    const file = join(saveDir, 'evt_1.json');
    const original = saved('evt_1.json');
    relayed.length = 0;
    const result = await svc(['webhooks', 'replay', file, '--to', receiverUrl], { env: { SVC_CONFIG_DIR: tempConfigDir(), SVC_WEBHOOK_SECRET: SECRET } });
    expect([result.exitCode, result.stdout, result.stderr]).toEqual([
      0,
      JSON.stringify({ file, eventId: 'evt_1', receivedAt: original.receivedAt, status: 202, ok: true, body: '' }),
      `1 of 1 delivery answered 2xx by ${receiverUrl}`,
    ]);
    expect(relayed).toHaveLength(1);
    expect(relayed[0].body.equals(Buffer.from(original.body))).toBe(true);
    const t = Number(/^t=(\d+),/.exec(String(relayed[0].headers['svc-signature']))?.[1]);
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(5);
    expect(relayed[0].headers).toMatchObject({ 'svc-signature': signed(original.body, t), 'svc-event-id': 'evt_1', 'content-type': 'application/json' });
  });

  it('names files safely after untrusted ids: no path traversal, control characters shown, a generated name without an id', async () => {
    const hostile = JSON.stringify({ id: '../../escape/\u001b[31mred', type: 'order.sent\u001b]0;title\u0007', data: {} });
    expect((await post(hostile, { 'svc-signature': signed(hostile) })).status).toBe(200);
    const anonymous = JSON.stringify({ type: 'ping', data: {} });
    expect((await post(anonymous, { 'svc-signature': signed(anonymous) })).status).toBe(200);
    await untilListener(() => stderr.some((line) => line.includes('escape/')) && stderr.some((line) => / ping  ✓/.test(line)));
    expect(stderr.find((line) => line.includes('escape/'))).toMatch(new RegExp(`^${ISO}  \\.\\./\\.\\./escape/\\\\x1b\\[31mred  order\\.sent\\\\x1b\\]0;title\\\\x07  ✓ verified$`));
    expect(stderr.find((line) => / ping  ✓/.test(line))).toMatch(new RegExp(`^${ISO}  -  ping  ✓ verified$`));
    const files = savedFiles();
    expect(files).toContain('_.._escape___31mred.json');
    expect(saved('_.._escape___31mred.json').body).toBe(hostile);
    const generated = files.filter((name) => name.startsWith('delivery-'));
    expect(generated).toHaveLength(1);
    expect(generated[0]).toMatch(/^delivery-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-[0-9a-f]{8}\.json$/);
    expect(saved(generated[0]).body).toBe(anonymous);
  });

  it('refuses a 9 MB forged delivery with 413 and answers a good one while the forgery is still arriving', async () => {
    // The forgery's first 2 MiB, then the rest held back until the good delivery has been answered.
    const forged = Buffer.alloc(9 * 1024 * 1024, 'a');
    forged.write('{"id":"evt_big","pad":"');
    forged.write('"}', forged.length - 2);
    const upload = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': forged.length, 'svc-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`, 'svc-event-id': 'evt_big' },
    });
    const forgedReply = new Promise<number>((resolve, reject) => {
      upload.once('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      upload.once('error', reject);
    });
    upload.write(forged.subarray(0, 2 * 1024 * 1024));
    expect(await forgedReply).toBe(413);
    const goodBody = JSON.stringify({ id: 'evt_after', type: 'order.sent', data: {} });
    const during = await post(goodBody, { 'svc-signature': signed(goodBody) });
    expect(during.status).toBe(200);
    const uploaded = new Promise<void>((resolve, reject) => {
      upload.once('close', resolve);
      upload.once('error', reject);
    });
    upload.end(forged.subarray(2 * 1024 * 1024));
    await uploaded;
    const after = await post(goodBody, { 'svc-signature': signed(goodBody) });
    expect([after.status, await after.json()]).toEqual([200, { received: true, duplicate: true }]);
    await untilListener(() => stderr.some((line) => line.includes('evt_big')));
    expect(stderr.find((line) => line.includes('evt_big'))).toMatch(new RegExp(`^${ISO}  evt_big  -  ✗ too_large: body over 1 MiB, not read$`));
    expect(savedFiles().some((name) => name.startsWith('evt_big'))).toBe(false);
  });

  it('refuses a body over 1 MiB sent without a length (chunked) with 413 too', async () => {
    const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'svc-signature': `t=1,v1=${'2'.repeat(64)}` } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      for (let i = 0; i < 24; i++) req.write(Buffer.alloc(128 * 1024, 'z'));
      req.end();
    });
    expect(reply).toEqual({ status: 413, body: JSON.stringify({ error: 'too_large', detail: 'body over 1048576 bytes (1 MiB)' }) });
  });

  it('a forged body under the cap is answered 400 within the sender\'s response time-out: the diagnosis is bounded', async () => {
    const body = JSON.stringify({ id: 'evt_mid', type: 'order.sent', pad: 'b'.repeat(900 * 1024) });
    const started = performance.now();
    const reply = await post(body, { 'svc-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'1'.repeat(64)}` });
    expect(reply.status).toBe(400);
    // The API gives a receiver 10 s to answer a delivery (a later answer is a failed delivery); a
    // diagnosis that grew with the body's square would take minutes here.
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe('webhooks listen: credentials and browsers (Trust what svc reads)', () => {
  it('saves Authorization, Proxy-Authorization and Cookie values as [redacted]; the other headers as sent', async () => {
    const body = JSON.stringify({ id: 'evt_creds', type: 'order.sent', data: {} });
    const reply = await post(body, { 'svc-signature': signed(body), authorization: 'Bearer sk_secret_1', 'proxy-authorization': 'Basic c2VjcmV0', cookie: 'session=s3cr3t', 'x-trace': 't1' });
    expect(reply.status).toBe(200);
    await untilListener(() => savedFiles().includes('evt_creds.json'));
    const text = readFileSync(join(saveDir, 'evt_creds.json'), 'utf8');
    expect(text).not.toMatch(/sk_secret_1|c2VjcmV0|s3cr3t/);
    expect(saved('evt_creds.json').headers).toMatchObject({ authorization: '[redacted]', 'proxy-authorization': '[redacted]', cookie: '[redacted]', 'x-trace': 't1' });
  });

  it('answers a request carrying an Origin header (a browser) 403: not saved, not shown as a delivery', async () => {
    const body = JSON.stringify({ id: 'evt_browser', type: 'order.cancelled', data: {} });
    const before = savedFiles();
    const reply = await post(body, { 'svc-signature': signed(body), origin: 'https://evil.example' });
    expect([reply.status, await reply.json()]).toEqual([403, { error: 'forbidden', detail: 'requests from a browser (with an Origin header) are not deliveries' }]);
    await untilListener(() => stderr.some((line) => line.includes('evil.example')));
    expect(stderr.filter((line) => line.includes('evil.example'))).toEqual(['refused a request from a browser (Origin https://evil.example): 403, not saved']);
    expect(stderr.some((line) => line.includes('evt_browser'))).toBe(false);
    expect(stdout.some((line) => line.includes('evt_browser'))).toBe(false);
    expect(savedFiles()).toEqual(before);
  });

  it('a link planted at a delivery file name gets the next free name; a save that fails is said on its line; the listener goes on', async () => {
    const dir = join(tempConfigDir(), 'saved');
    mkdirSync(dir, { mode: 0o700 });
    const victim = join(tempConfigDir(), 'victim.txt');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, join(dir, 'evt_link.json'));
    const listener = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', '0', '--save-dir', dir], {
      env: { ...process.env, SVC_CONFIG_DIR: tempConfigDir(), SVC_WEBHOOK_SECRET: SECRET, NO_COLOR: '1' },
    });
    const lines: string[] = [];
    const exited = new Promise<number | null>((resolve) => listener.once('exit', resolve));
    const ready = await new Promise<string>((resolve) =>
      createInterface({ input: listener.stderr! }).on('line', (line) => {
        lines.push(line);
        const match = /^Ready: (http:\/\/\S+)$/.exec(line);
        if (match) resolve(match[1]);
      }),
    );
    const deliver = (id: string) => {
      const body = JSON.stringify({ id, type: 'order.sent', data: {} });
      return fetch(ready, { method: 'POST', headers: { 'content-type': 'application/json', 'svc-signature': signed(body) }, body });
    };
    const waitLine = async (text: string) => {
      const deadline = Date.now() + 5000;
      while (!lines.some((line) => line.includes(text))) {
        if (Date.now() > deadline) throw new Error(`timed out; stderr so far:\n${lines.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return lines.find((line) => line.includes(text))!;
    };
    const first = await deliver('evt_link');
    expect([first.status, await first.json()]).toEqual([200, { received: true }]);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readdirSync(dir).sort()).toEqual(['evt_link.2.json', 'evt_link.json']);
    expect(JSON.parse(readFileSync(join(dir, 'evt_link.2.json'), 'utf8')).body).toBe(JSON.stringify({ id: 'evt_link', type: 'order.sent', data: {} }));
    // The save directory gone (a file in its place): that delivery is answered 500 and said so; the next one, once it is back, is saved.
    rmSync(dir, { recursive: true });
    writeFileSync(dir, '');
    const failed = await deliver('evt_unsaved');
    expect([failed.status, await failed.json()]).toEqual([500, { error: 'not_saved', detail: 'the receiver could not save the delivery; deliver it again' }]);
    expect(await waitLine('evt_unsaved')).toMatch(new RegExp(`^${ISO}  evt_unsaved  order\\.sent  ✓ verified  ✗ not saved: ENOTDIR: not a directory, open '${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/evt_unsaved\\.json'$`));
    rmSync(dir);
    mkdirSync(dir, { mode: 0o700 });
    const after = await deliver('evt_after_failure');
    expect(after.status).toBe(200);
    expect(readdirSync(dir)).toEqual(['evt_after_failure.json']);
    expect(listener.exitCode).toBe(null);
    listener.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(lines.some((line) => line.startsWith('error:'))).toBe(false);
  });
});

describe('--forward-to plain http only to loopback', () => {
  it.each(['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/hooks', 'http://example.com/hooks'])('refuses %s before any connection (in-process)', (target) => {
    expect(() => deliveryUrl(target, '--forward-to')).toThrow(`--forward-to: plain http:// only to a loopback host (127.0.0.1, ::1, localhost); use https:// for ${new URL(target).hostname}`);
  });

  it('accepts https anywhere and http to loopback', () => {
    for (const target of ['https://hooks.example.com/in', 'http://127.0.0.1:3000/in', 'http://localhost:3000/in', 'http://[::1]:3000/in']) expect(deliveryUrl(target, '--forward-to')).toBe(new URL(target).toString());
  });

  it('exits 2 with one line, listening and connecting to nothing', async () => {
    const result = await svc(['webhooks', 'listen', '--port', '0', '--forward-to', 'http://169.254.169.254/latest/meta-data/'], { env: { SVC_CONFIG_DIR: tempConfigDir(), SVC_WEBHOOK_SECRET: SECRET } });
    expect([result.exitCode, result.stdout, result.stderr]).toEqual([
      2,
      '',
      'error: usage_error: --forward-to: plain http:// only to a loopback host (127.0.0.1, ::1, localhost); use https:// for 169.254.169.254',
    ]);
  });

  it('file names from ids', () => {
    expect(fileNameFor('evt_1')).toBe('evt_1');
    expect(fileNameFor('../../etc/passwd')).toBe('_.._etc_passwd');
    expect(fileNameFor('..')).toBe('');
    expect(fileNameFor('/')).toBe('');
    expect(fileNameFor('.hidden')).toBe('hidden');
    expect(fileNameFor('a'.repeat(300))).toBe('a'.repeat(100));
    expect(fileNameFor('C:\\x\\y')).toBe('C__x_y');
  });
});

/** The same refusals with nothing but loopback: even wrong code could not reach another machine. */
const unshareWorks = spawnSync('unshare', ['-rn', 'true']).status === 0;
describe.runIf(unshareWorks)('refusals inside a network namespace with only loopback (unshare -rn)', () => {
  it('listen --forward-to to the metadata address, and the sandbox admin API given it as a webhook URL', () => {
    const script = [
      'ip link set lo up',
      `"$NODE" "$BIN" webhooks listen --port 0 --forward-to http://169.254.169.254/latest/meta-data/; echo "listen-exit $?"`,
      `"$NODE" "$BIN" sandbox --port 0 --no-profile > "$DIR/ready" 2>/dev/null & pid=$!`,
      'i=0; while [ ! -s "$DIR/ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done',
      `"$NODE" -e '
        const ready = JSON.parse(require("fs").readFileSync(process.env.DIR + "/ready", "utf8"));
        (async () => {
          const patch = await fetch(ready.adminUrl + "/keys/full", { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ webhookUrl: "http://169.254.169.254/latest/meta-data/" }) });
          const deliveries = await (await fetch(ready.adminUrl + "/deliveries")).json();
          console.log("admin " + patch.status + " " + JSON.stringify(deliveries.items));
        })();'`,
      'kill $pid',
    ].join('\n');
    const result = spawnSync('unshare', ['-rn', 'sh', '-c', script], {
      env: { ...process.env, NODE: process.execPath, BIN, DIR: tempConfigDir(), SVC_CONFIG_DIR: tempConfigDir(), SVC_WEBHOOK_SECRET: SECRET, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.stderr).toBe('error: usage_error: --forward-to: plain http:// only to a loopback host (127.0.0.1, ::1, localhost); use https:// for 169.254.169.254\n');
    expect(result.stdout).toBe('listen-exit 2\nadmin 400 []\n');
  });
});
if (!unshareWorks) console.warn('webhooks-listen-tools: unshare -rn is not available here; the network-namespace refusal test did not run (the in-process refusals did).');
