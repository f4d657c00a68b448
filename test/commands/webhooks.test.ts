/**
 * `svc webhooks test | sign` in-process against the sandbox: the ping's outcome decides the exit
 * code, and a signed payload verifies independently. (`webhooks listen` runs until a signal:
 * test/e2e/webhooks-listen.test.ts.)
 */
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/run.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/cleanup.js';

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});

const hmac = (secret: string, message: string) => createHmac('sha256', secret).update(message).digest('hex');
const setWebhookUrl = (webhookUrl: string | null) => sandbox.admin('PATCH', '/keys/full', { webhookUrl });

describe('webhooks test', () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
  });

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
    expect(result).toEqual({ exitCode: 0, stdout: '{"responseStatus":204,"error":null}\n', stderr: '' });
  });

  it('exits 1 when the receiver answers 500', async () => {
    await setWebhookUrl(await receiver(500));
    const result = await svc(['webhooks', 'test', '-o', 'table'], { env: sandbox.env('full') });
    expect(result).toEqual({
      exitCode: 1,
      stdout: '✗ ping not delivered: answered 500\n  error: the receiver answered HTTP 500\n',
      stderr: 'error: webhook_not_delivered: ping not delivered: the receiver answered 500\n',
    });
  });

  it('exits 1 when the key has no webhook URL', async () => {
    await setWebhookUrl(null);
    const result = await svc(['webhooks', 'test'], { env: sandbox.env('full') });
    expect(result).toEqual({
      exitCode: 1,
      stdout: '{"responseStatus":null,"error":"the key full has no webhook URL; nothing was sent"}\n',
      stderr:
        'error: webhook_not_delivered: ping not delivered: the key full has no webhook URL; nothing was sent\n' +
        'hint: the key\'s webhook URL is set by the operator\'s team (in the sandbox: PATCH /_sandbox/keys/{name} {"webhookUrl": …})\n',
    });
  });
});

describe('webhooks sign', () => {
  const secret = 'b'.repeat(64);
  const payloadFile = join(tempDir(), 'event.json');
  const body = '{"id":"e1","type":"ping","data":{}}\n';
  writeFileSync(payloadFile, body);

  it('prints a header that verifies with an independent HMAC', async () => {
    const result = await svc(['webhooks', 'sign', '--payload-file', payloadFile, '--secret-stdin', '--timestamp', '1763719200'], { input: `${secret}\n` });
    expect(result).toEqual({ exitCode: 0, stdout: `t=1763719200,v1=${hmac(secret, `1763719200.${body}`)}\n`, stderr: '' });
  });

  // Found by bench/stress-signatures.mjs: --secret-stdin trimmed spaces, signing with another secret than the one given.
  it('signs with the piped secret exactly, less the one line end', async () => {
    const padded = ` ${secret.slice(0, 16)} x `;
    const result = await svc(['webhooks', 'sign', '--payload-file', payloadFile, '--secret-stdin', '--timestamp', '1763719200'], { input: `${padded}\n` });
    expect(result).toEqual({ exitCode: 0, stdout: `t=1763719200,v1=${hmac(padded, `1763719200.${body}`)}\n`, stderr: '' });
  });

  it('signs now by default, with the secret from SVC_WEBHOOK_SECRET, reading the payload from stdin', async () => {
    const result = await svc(['webhooks', 'sign', '--payload-file', '-'], { input: body, env: { SVC_WEBHOOK_SECRET: secret, SVC_CONFIG_DIR: tempDir() } });
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})\n$/.exec(result.stdout)!;
    expect(result.stderr).toBe('');
    expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(30);
    expect(v1).toBe(hmac(secret, `${t}.${body}`));
  });

  it('is a usage error without a payload, with a bad timestamp, or without any secret', async () => {
    const env = { SVC_CONFIG_DIR: tempDir(), SVC_WEBHOOK_SECRET: secret };
    const usage = (message: string) => ({ exitCode: 2, stdout: '', stderr: `error: usage_error: ${message}\n` });
    expect(await svc(['webhooks', 'sign'], { env })).toEqual(usage('--payload-file: required (the raw body to sign, - for stdin)'));
    expect(await svc(['webhooks', 'sign', '--payload-file', payloadFile, '--timestamp', '12.5'], { env })).toEqual(usage('--timestamp: must be whole seconds (digits only), got "12.5"'));
    expect(await svc(['webhooks', 'sign', '--payload-file', payloadFile], { env: { SVC_CONFIG_DIR: tempDir() } })).toEqual(
      usage("no webhook secret for profile default: pipe it with --secret-stdin, or set SVC_WEBHOOK_SECRET, or save it in the profile with 'svc login --webhook-secret-stdin'"),
    );
  });
});
