/**
 * The shim keeps V8's compiled code of dist/ between runs (bin/svc.js, on every Node): a run with
 * the cache filled, a run whose cache files were damaged, and runs whose temp directory cannot hold
 * one, print exactly what a run without it prints. Under /proc Node's own recursive mkdir never
 * returns, so the shim makes the directory itself and gives up there.
 */
import { chmodSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cleanup.js';
import { svc } from '../helpers/svc.js';

describe('compile cache', () => {
  it('profiles ls prints the same with the cache on, off, filled, and in temp directories that cannot hold it', async () => {
    const configDir = tempDir();
    const profile = { baseUrl: 'https://api.example.test/v1', apiKey: 'svc_live_abcdefghijklmnopqrstuvwxyz1234' };
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ currentProfile: 'ci', profiles: { ci: profile }, cursors: {} }), { mode: 0o600 });
    const env = (extra: Record<string, string>) => ({ env: { SVC_CONFIG_DIR: configDir, ...extra }, timeout: 20_000 });
    const plain = await svc(['profiles', 'ls'], env({ NODE_DISABLE_COMPILE_CACHE: '1' }));
    expect(plain.exitCode).toBe(0);
    expect(JSON.parse(plain.stdout)).toEqual({ name: 'ci', baseUrl: profile.baseUrl, apiKey: 'svc_live_…1234', webhookSecret: false, storage: 'file', default: true });
    const cacheHome = tempDir();
    const runs = await Promise.all([
      svc(['profiles', 'ls'], env({ TMPDIR: cacheHome })),
      svc(['profiles', 'ls'], env({ TMPDIR: '/proc/svc-no-such-dir' })),
      svc(['profiles', 'ls'], env({ TMPDIR: '/proc' })),
      svc(['profiles', 'ls'], env({ TMPDIR: join(configDir, 'config.json') })),
    ]);
    const again = await svc(['profiles', 'ls'], env({ TMPDIR: cacheHome }));
    // The cache: a file of this user's alone for each module the run loaded (the CLI, its core, the verb).
    const cache = join(cacheHome, 'node-compile-cache');
    const files = readdirSync(cache);
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) expect({ file, mode: statSync(join(cache, file)).mode & 0o777 }).toEqual({ file: expect.stringMatching(/^svc-[0-9a-f]{16}\.v8$/), mode: 0o600 });
    // Damaged code behind an intact first line (which V8 alone would run, and crash on, every time)
    // is refused and written again, as is a file that is not one of svc's at all.
    const planted = files.map((file) => {
      const bytes = readFileSync(join(cache, file));
      for (let i = bytes.indexOf(10) + 1 + 64; i < bytes.length; i += 97) bytes[i] ^= 0x5a;
      writeFileSync(join(cache, file), bytes);
      return bytes;
    });
    const flipped = await svc(['profiles', 'ls'], env({ TMPDIR: cacheHome }));
    const rewritten = files.map((file, i) => !readFileSync(join(cache, file)).equals(planted[i]));
    for (const file of files) writeFileSync(join(cache, file), 'not code');
    // A cache file of a module that is no longer there (an older build's chunk) goes when fresh code is written.
    const stale = join(cache, 'svc-0000000000000000.v8');
    writeFileSync(stale, `${JSON.stringify([join(configDir, 'gone.js'), 0, 0, 0, 0, 0])}\ncode`, { mode: 0o600 });
    const damaged = await svc(['profiles', 'ls'], env({ TMPDIR: cacheHome }));
    expect(rewritten).toEqual(files.map(() => true));
    expect(files.map((file) => statSync(join(cache, file)).size > 1000)).toEqual(files.map(() => true));
    // One file for each module, written over in place: nothing piles up.
    expect(readdirSync(cache).sort()).toEqual([...files].sort());
    for (const run of [...runs, again, flipped, damaged]) expect({ code: run.exitCode, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, stdout: plain.stdout, stderr: '' });
  });

  it('with source maps on (NODE_OPTIONS=--enable-source-maps), --debug stack traces name the sources', async () => {
    const run = await svc(['links', 'get', 'nope', '--debug'], { env: { SVC_CONFIG_DIR: tempDir(), NODE_OPTIONS: '--enable-source-maps' }, timeout: 20_000 });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/\(.*src\/api\/checks\.ts:\d+:\d+\)/);
  });

  it('a cache directory others can write, or a link, is not used: no code is read from or written into it', async () => {
    const configDir = tempDir();
    const shared = tempDir();
    mkdirSync(join(shared, 'node-compile-cache'));
    chmodSync(join(shared, 'node-compile-cache'), 0o777);
    const linked = tempDir();
    const target = tempDir();
    symlinkSync(target, join(linked, 'node-compile-cache'));
    const env = (tmp: string) => ({ env: { SVC_CONFIG_DIR: configDir, TMPDIR: tmp }, timeout: 20_000 });
    for (const tmp of [shared, linked]) expect((await svc(['profiles', 'ls'], env(tmp))).exitCode).toBe(0);
    expect([readdirSync(join(shared, 'node-compile-cache')), readdirSync(target)]).toEqual([[], []]);
  });
});
