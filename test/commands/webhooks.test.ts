/**
 * `svc webhooks test | sign | listen` against the sandbox: the ping's outcome decides the exit code,
 * a signed payload verifies independently, and the local receiver verifies, prints, answers and
 * marks duplicates — for deliveries from the sandbox itself and for hand-made ones.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/run.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { BIN, tempConfigDir } from '../helpers/svc.js';

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});

const hmac = (secret: string, message: string) => createHmac('sha256', secret).update(message).digest('hex');
const setWebhookUrl = (webhookUrl: string | null) => sandbox.admin('PATCH', '/keys/full', { webhookUrl });

describe('webhooks test', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  async function receiver(status: number): Promise<string> {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(status).end());
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  }

  it('exits 0 when the receiver answers 2xx and prints the result', async () => {
    await setWebhookUrl(await receiver(204));
    const result = await svc(['webhooks', 'test'], { env: sandbox.env('full') });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ responseStatus: 204, error: null });
  });

  it('exits 1 when the receiver answers 500', async () => {
    await setWebhookUrl(await receiver(500));
    const result = await svc(['webhooks', 'test', '-o', 'table'], { env: sandbox.env('full') });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('500');
  });

  it('exits 1 when the key has no webhook URL', async () => {
    await setWebhookUrl(null);
    const result = await svc(['webhooks', 'test'], { env: sandbox.env('full') });
    expect(result.exitCode).toBe(1);
    const body = JSON.parse(result.stdout);
    expect(body.responseStatus).toBeNull();
    expect(body.error).toMatch(/webhook URL/i);
  });
});

describe('webhooks sign', () => {
  const secret = 'b'.repeat(64);
  const payloadFile = join(tempConfigDir(), 'event.json');
  const body = '{"id":"e1","type":"ping","data":{}}\n';
  writeFileSync(payloadFile, body);

  it('prints a header that verifies with an independent HMAC', async () => {
    const result = await svc(['webhooks', 'sign', '--payload-file', payloadFile, '--secret-stdin', '--timestamp', '1763719200'], { input: `${secret}\n` });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`t=1763719200,v1=${hmac(secret, `1763719200.${body}`)}`);
  });

  // Found by bench/stress-signatures.mjs: --secret-stdin trimmed spaces, signing with another secret than the one given.
  it('signs with the piped secret exactly, less the one line end', async () => {
    const padded = ` ${secret.slice(0, 16)} x `;
    const result = await svc(['webhooks', 'sign', '--payload-file', payloadFile, '--secret-stdin', '--timestamp', '1763719200'], { input: `${padded}\n` });
    expect(result.stdout).toBe(`t=1763719200,v1=${hmac(padded, `1763719200.${body}`)}`);
  });

  it('signs now by default, with the secret from SVC_WEBHOOK_SECRET, reading the payload from stdin', async () => {
    const result = await svc(['webhooks', 'sign', '--payload-file', '-'], { input: body, env: { SVC_WEBHOOK_SECRET: secret, SVC_CONFIG_DIR: tempConfigDir() } });
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(result.stdout)!;
    expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(30);
    expect(v1).toBe(hmac(secret, `${t}.${body}`));
  });

  it('is a usage error without a payload, with a bad timestamp, or without any secret', async () => {
    const env = { SVC_CONFIG_DIR: tempConfigDir(), SVC_WEBHOOK_SECRET: secret };
    expect((await svc(['webhooks', 'sign'], { env })).exitCode).toBe(2);
    expect((await svc(['webhooks', 'sign', '--payload-file', payloadFile, '--timestamp', '12.5'], { env })).exitCode).toBe(2);
    const noSecret = await svc(['webhooks', 'sign', '--payload-file', payloadFile], { env: { SVC_CONFIG_DIR: tempConfigDir() } });
    expect(noSecret.exitCode).toBe(2);
    expect(noSecret.stderr).toMatch(/--secret-stdin.*SVC_WEBHOOK_SECRET.*profile/);
  });
});

describe('webhooks listen', () => {
  const secret = () => sandbox.key('full').webhookSecret;
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child?.exitCode === null) child.kill('SIGKILL');
  });

  /** Starts the receiver on a free port; resolves with its URL from the Ready line. */
  async function listen(format: string): Promise<{ url: string; lines: string[] }> {
    child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', '0', '-o', format], {
      env: { ...process.env, ...sandbox.env('full'), SVC_WEBHOOK_SECRET: secret() },
    });
    const lines: string[] = [];
    createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child!.stderr! }).on('line', (line) => {
        const ready = /^Ready: (http:\/\/\S+)$/.exec(line);
        if (ready) resolve(ready[1]);
      });
      child!.once('exit', (code) => reject(new Error(`listen exited with ${code}`)));
    });
    return { url, lines };
  }

  const post = (url: string, body: string, signature: string) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'svc-signature': signature }, body });

  const until = async (check: () => boolean, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  it('verifies hand-made deliveries, answers 200 or 400, and prints each event once', async () => {
    const { url, lines } = await listen('jsonl');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
    const body = JSON.stringify({ id: 'evt-1', type: 'order.sent', occurredAt: '2026-11-21T10:00:00.000000Z', environment: 'production', data: {} });
    const t = Math.floor(Date.now() / 1000);
    const good = `t=${t},v1=${hmac(secret(), `${t}.${body}`)}`;

    const first = await post(url, body, good);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true });
    const again = await post(url, body, good);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });

    const tampered = await post(url, body.replace('order.sent', 'order.cancelled'), good);
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toMatchObject({ error: 'no_matching_signature' });
    const stale = `t=${t - 3600},v1=${hmac(secret(), `${t - 3600}.${body}`)}`;
    const errorOf = async (response: Response) => ((await response.json()) as { error: string }).error;
    expect(await errorOf(await post(url, body, stale))).toBe('timestamp_outside_tolerance');
    expect(await errorOf(await post(url, body, 'garbage'))).toBe('malformed_header');
    expect((await fetch(url, { method: 'POST', body })).status).toBe(400);

    await until(() => lines.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines).toEqual([body]);
  });

  it('receives the sandbox\'s own signed deliveries and pings, marking duplicates in the table', async () => {
    const { url, lines } = await listen('table');
    await setWebhookUrl(url);
    const test = await svc(['webhooks', 'test'], { env: sandbox.env('full') });
    expect(test.exitCode).toBe(0);
    const brandId = sandbox.key('full').brandIds[0];
    const link = await sandbox.admin<{ id: string }>('POST', '/links', { brandId, fullName: 'Webhook Player' });
    await until(() => lines.some((line) => line.includes('personal_link.created') && line.includes(link.body.id.slice(0, 8))));
    expect(lines[0]).toMatch(/^TIME\s+TYPE/);
    expect(lines.some((line) => /\bping\b/.test(line))).toBe(true);

    const body = JSON.stringify({ id: 'evt-dup', type: 'order.sent', occurredAt: '2026-11-21T10:00:00.000000Z', environment: 'production', data: {} });
    const t = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 2; i++) expect((await post(url, body, `t=${t},v1=${hmac(secret(), `${t}.${body}`)}`)).status).toBe(200);
    await until(() => lines.filter((line) => line.includes('order.sent')).length === 2);
    expect(lines.filter((line) => line.includes('order.sent')).map((line) => line.endsWith('duplicate'))).toEqual([false, true]);

    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    child!.kill('SIGINT');
    expect(await exited).toBe(130);
  });
});
