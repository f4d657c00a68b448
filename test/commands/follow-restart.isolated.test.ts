/**
 * `events tail --follow` outlives a sandbox restarted under it: while the sandbox is down the outage
 * is one line with its time; the restarted sandbox saves the profile with a new key, which the tail
 * reads from disk (and says so) instead of ending with invalid_api_key; the new feed is read from its
 * oldest event; the outage's end names its length. Waits run in virtual time (nothing sleeps).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli.js';
import { ConfigStore } from '../../src/core/config.js';
import type { IOStreams } from '../../src/core/io.js';
import { createSandbox } from '../../src/sandbox/app.js';
import { listen, type ListeningSandbox } from '../../src/sandbox/server.js';
import { adminCall } from '../helpers/admin.js';
import { closeLater, tempDir } from '../helpers/cleanup.js';

vi.mock('../../src/core/sleep.js', () => import('../helpers/virtual-time.js'));

/** A sandbox of `seed` on `port` (0: a free one), with `events` link events recorded by the team. */
async function sandboxOn(port: number, seed: number, events: number): Promise<{ listening: ListeningSandbox; baseUrl: string; key: string; adminUrl: string }> {
  const sandbox = createSandbox({ seed });
  const listening = await listen(sandbox, '127.0.0.1', port);
  closeLater(() => listening.close());
  const info = sandbox.info(listening.origin);
  const full = info.keys.find((key) => key.name === 'full')!;
  for (let i = 0; i < events; i++) {
    const { status } = await adminCall(info.adminUrl, 'POST', '/links', { brandId: full.brandIds[0], fullName: `Player ${i}` });
    expect(status).toBe(201);
  }
  return { listening, baseUrl: info.baseUrl, key: full.apiKey, adminUrl: info.adminUrl };
}

/** The whole feed of a sandbox's `full` key, each event as its exact JSON line. */
async function feedOf(baseUrl: string, key: string): Promise<string[]> {
  const page = (await (await fetch(`${baseUrl}/events?limit=100`, { headers: { authorization: `Bearer ${key}` } })).json()) as { items: unknown[] };
  return page.items.map((item) => JSON.stringify(item));
}

/** Resolves once `read()` passes `test`, checking as output arrives. */
function until(stream: PassThrough, read: () => string, test: (text: string) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!test(read())) return;
      stream.off('data', check);
      resolve();
    };
    stream.on('data', check);
    setImmediate(check);
  });
}

describe('events tail --follow across a sandbox restart', () => {
  it('one outage line with its time, the key changed on disk taken and said so, the new feed shown, the outage length at its end', async () => {
    const configDir = tempDir();
    const first = await sandboxOn(0, 1, 2);
    const config = await ConfigStore.open({ SVC_CONFIG_DIR: configDir });
    await config.setProfile('sandbox', { baseUrl: first.baseUrl, apiKey: first.key });

    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (chunk) => (out += chunk));
    stderr.on('data', (chunk) => (err += chunk));
    const stdin = new PassThrough();
    stdin.end();
    const streams = { stdin, stdout, stderr, env: { NO_COLOR: '1', SVC_CONFIG_DIR: configDir } } as unknown as IOStreams;
    const run = main(['--profile', 'sandbox', 'events', 'tail', '--follow', '--interval', '1'], streams);

    const lines = () => out.split('\n').filter(Boolean);
    const firstFeed = await feedOf(first.baseUrl, first.key);
    expect(firstFeed.length).toBeGreaterThanOrEqual(2);
    await until(stdout, () => out, () => lines().length === firstFeed.length);
    // The sandbox stops; polls fail; it comes back on the same port with new keys and saves its profile again.
    await first.listening.close();
    await until(stderr, () => err, (text) => text.includes('feed unavailable'));
    const port = Number(new URL(first.baseUrl).port);
    const second = await sandboxOn(port, 2, 1);
    expect(second.key).not.toBe(first.key);
    await (await ConfigStore.open({ SVC_CONFIG_DIR: configDir })).setProfile('sandbox', { baseUrl: second.baseUrl, apiKey: second.key });
    const secondFeed = await feedOf(second.baseUrl, second.key);
    await until(stdout, () => out, () => lines().length === firstFeed.length + secondFeed.length);
    await until(stderr, () => err, (text) => text.includes('reachable again'));

    // A reader that goes away ends the tail quietly.
    stdout.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(await run).toBe(0);
    expect(lines()).toEqual([...firstFeed, ...secondFeed]);
    const time = String.raw`\d\d:\d\d:\d\d UTC`;
    const notes = err.split('\n').filter(Boolean);
    expect(notes).toHaveLength(4);
    expect(notes[0]).toMatch(new RegExp(`^… ${time} feed unavailable, retrying with backoff: could not reach http://127\\.0\\.0\\.1:${port}: .*$`));
    expect(notes[1]).toMatch(new RegExp(`^… ${time} the API key of profile sandbox changed on disk \\(a restarted sandbox\\?\\); going on with the new one$`));
    expect(notes[2]).toMatch(new RegExp(`^… ${time} the feed does not know the cursor of the old key \\(a restarted sandbox\\?\\); reading its events from the oldest$`));
    const since = /^… (\d\d:\d\d:\d\d UTC) feed unavailable/.exec(notes[0])![1];
    expect(notes[3]).toMatch(new RegExp(`^… ${time} feed reachable again after \\d+(m \\d+)?s \\(unavailable since ${since}\\)$`));
  });
});
