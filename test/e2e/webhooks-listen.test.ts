/**
 * `svc webhooks listen` as a process: the local receiver verifies, prints, answers and marks
 * duplicates — for deliveries from the sandbox itself and for hand-made ones — and Ctrl-C ends it
 * with 130.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createInterface } from 'node:readline';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { svc } from '../helpers/run.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { BIN, stopChild } from '../helpers/svc.js';
import { until } from '../helpers/wait.js';

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});

const hmac = (secret: string, message: string) => createHmac('sha256', secret).update(message).digest('hex');
const setWebhookUrl = (webhookUrl: string | null) => sandbox.admin('PATCH', '/keys/full', { webhookUrl });

describe('webhooks listen', () => {
  const secret = () => sandbox.key('full').webhookSecret;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child) await stopChild(child);
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

    // stdout keeps order: once a last, valid event is printed, every line before it has arrived.
    const last = JSON.stringify({ id: 'evt-last', type: 'order.sent', occurredAt: '2026-11-21T10:00:01.000000Z', environment: 'production', data: {} });
    expect((await post(url, last, `t=${t},v1=${hmac(secret(), `${t}.${last}`)}`)).status).toBe(200);
    await until(() => lines.includes(last));
    expect(lines).toEqual([body, last]);
  });

  it('receives the sandbox\'s own signed deliveries and pings, marking duplicates in the table', async () => {
    const { url, lines } = await listen('table');
    await setWebhookUrl(url);
    const test = await svc(['webhooks', 'test'], { env: sandbox.env('full') });
    expect(test.exitCode).toBe(0);
    const brandId = sandbox.key('full').brandIds[0];
    const link = await sandbox.admin<{ id: string }>('POST', '/links', { brandId, fullName: 'Webhook Player' });
    await until(() => lines.some((line) => line.includes('personal_link.created') && line.includes(link.body.id.slice(0, 8))));
    expect(lines[0]).toMatch(/^Time\s+Type/);
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
