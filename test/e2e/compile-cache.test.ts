/**
 * The shim turns on Node's compile cache (Node 22.1+): a run with the cache filled, and runs whose
 * temp directory cannot hold one, print exactly what a run without it prints. Under /proc Node's
 * own recursive mkdir never returns, so the shim makes the directory itself and gives up there.
 */
import { chmodSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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
    for (const run of [...runs, again]) expect({ code: run.exitCode, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, stdout: plain.stdout, stderr: '' });
  });

  // Node 22.1+ only (Node 20 has no compile cache: nothing to refuse there).
  const hasCompileCache = typeof (createRequire(import.meta.url)('node:module') as { enableCompileCache?: unknown }).enableCompileCache === 'function';
  it.runIf(hasCompileCache)('a cache directory others can write, or a link, is not used: no code is read from or written into it', async () => {
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
