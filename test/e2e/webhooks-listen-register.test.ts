/**
 * `webhooks listen` against a loopback sandbox: it registers its own URL on the profile's key (and
 * says so), the sandbox's deliveries then reach it, and the key's previous URL comes back when it
 * stops; `--no-register` leaves the key alone. A webhook secret that changes in the profile while it
 * runs (a restarted sandbox saves a new one) is picked up. A process, because registration and its
 * undoing happen around a real listener and its signals.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { BIN, stopChild } from '../helpers/svc.js';
import { tempDir } from '../helpers/cleanup.js';
import { until } from '../helpers/wait.js';

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});

let child: ChildProcess | undefined;
afterEach(async () => {
  if (child) await stopChild(child);
  child = undefined;
});

/** Starts the listener; resolves once a stderr line matches `ready`, with every stderr line so far (the array keeps growing). */
async function listen(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ url: string; stderr: string[]; exited: Promise<number | null> }> {
  child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', '0', '-o', 'jsonl', ...args], { env: { ...process.env, ...env } });
  const stderr: string[] = [];
  const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child!.stderr! }).on('line', (line) => {
      stderr.push(line);
      if (ready.test(line)) resolve();
    });
    void exited.then((code) => reject(new Error(`listen exited with ${code}: ${stderr.join('\n')}`)));
  });
  const url = /^Ready: (\S+)$/.exec(stderr.find((line) => line.startsWith('Ready: ')) ?? '')![1];
  return { url, stderr, exited };
}

const webhookUrlOf = async (key: string): Promise<string | null> => {
  const me = await runInProcess(['me', '-o', 'json'], sandbox.env(key));
  return (JSON.parse(me.stdout) as { key: { webhookUrl: string | null } }).key.webhookUrl;
};

describe('webhooks listen against a loopback sandbox', () => {
  it("registers its URL on the key, receives the sandbox's deliveries, and puts the old URL back when it stops", async () => {
    expect(await webhookUrlOf('links')).toBeNull();
    const { url, stderr, exited } = await listen([], { ...sandbox.env('links'), SVC_WEBHOOK_SECRET: sandbox.key('links').webhookSecret }, /^Registered /);
    expect(stderr.slice(0, 2)).toEqual([
      `Ready: ${url}`,
      `Registered ${url} as the webhook URL of key links (was none); it is put back when this stops (--no-register leaves the key alone).`,
    ]);
    expect(await webhookUrlOf('links')).toBe(url);

    // A change made by the team is delivered to every key with the scope, this one included.
    const brandId = sandbox.key('links').brandIds[0];
    const created = await sandbox.admin<{ id: string }>('POST', '/links', { brandId, fullName: 'Grace Hopper' });
    await until(() => stderr.some((line) => line.includes('personal_link.created') && line.includes('✓ verified')));

    child!.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr.at(-1)).toBe('Put back the webhook URL of key links: none.');
    expect(await webhookUrlOf('links')).toBeNull();
    expect(created.status).toBe(201);
  });

  it('a closed terminal (SIGHUP) stops it like Ctrl-C: the old URL is put back, not left pointing at a dead listener', async () => {
    await sandbox.admin('PATCH', '/keys/other', { webhookUrl: 'https://hooks.example.test/other' });
    const { url, stderr, exited } = await listen([], { ...sandbox.env('other'), SVC_WEBHOOK_SECRET: sandbox.key('other').webhookSecret }, /^Registered /);
    expect(await webhookUrlOf('other')).toBe(url);
    child!.kill('SIGHUP');
    expect(await exited).toBe(130);
    expect(stderr.at(-1)).toBe('Put back the webhook URL of key other: https://hooks.example.test/other.');
    expect(await webhookUrlOf('other')).toBe('https://hooks.example.test/other');
  });

  it('--no-register leaves the key as it is', async () => {
    await sandbox.admin('PATCH', '/keys/stores', { webhookUrl: 'https://hooks.example.test/svc' });
    const { stderr, exited } = await listen(['--no-register'], { ...sandbox.env('stores'), SVC_WEBHOOK_SECRET: sandbox.key('stores').webhookSecret }, /^Ready: /);
    expect(await webhookUrlOf('stores')).toBe('https://hooks.example.test/svc');
    child!.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr.filter((line) => /Registered|Put back/.test(line))).toEqual([]);
    expect(await webhookUrlOf('stores')).toBe('https://hooks.example.test/svc');
  });

  it('takes a webhook secret that changed in the profile while it runs, and still refuses a forged one', async () => {
    const configDir = tempDir();
    const env = { SVC_CONFIG_DIR: configDir, SVC_KEYRING: '0' };
    const full = sandbox.key('full');
    const login = await runInProcess(['login', '--profile', 'sb', '--base-url', sandbox.baseUrl, '--api-key-stdin', '--webhook-secret-stdin'], env, `${full.apiKey}\n${full.webhookSecret}\n`);
    expect(login.exitCode).toBe(0);
    const { url, stderr } = await listen(['--profile', 'sb', '--no-register'], env, /^Ready: /);

    // The profile now holds another secret, as `svc sandbox` saves one when it starts again.
    const renewed = randomBytes(32).toString('hex');
    const file = join(configDir, 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as { profiles: Record<string, { webhookSecret: string }> };
    config.profiles.sb.webhookSecret = renewed;
    writeFileSync(file, JSON.stringify(config));

    const body = JSON.stringify({ id: 'evt-renewed', type: 'ping', occurredAt: '2026-11-24T10:00:00.000000Z', environment: 'production', data: {} });
    const sign = (secret: string) => {
      const t = Math.floor(Date.now() / 1000);
      return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
    };
    const post = (signature: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'svc-signature': signature }, body });
    expect((await post(sign(renewed))).status).toBe(200);
    // The answer can arrive before the listener's stderr line has been read here.
    const note = 'note: the webhook secret of profile sb changed (a restarted sandbox?); verifying with the new one';
    await until(() => stderr.includes(note));
    expect(stderr).toContain(note);
    expect((await post(sign(randomBytes(32).toString('hex')))).status).toBe(400);
  });
});
