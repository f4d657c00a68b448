/**
 * bin/svc.js turns on Node's own compile cache where the runtime has one (Node 22.1+): a run with the
 * cache filled, with the cache off (NODE_DISABLE_COMPILE_CACHE), with damaged cache files, and with a
 * cache home that cannot hold one, print exactly what a run without it prints. The cache is the user's
 * (XDG_CACHE_HOME or ~/.cache), never the shared temp directory: a TMPDIR under /proc, where Node 22
 * and 24's own recursive mkdir never returns, changes nothing. With --debug,
 * stack traces name the sources (source maps), whatever the cache.
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cleanup.js';
import { svc } from '../helpers/svc.js';

const hasCompileCache = (() => {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 1);
})();

/** Every file below `dir`. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => join(dir, name)).filter((path) => statSync(path).isFile());
}

describe('compile cache', () => {
  it('profiles ls prints the same with the cache on, off, filled, damaged, and in temp directories that cannot hold it', async () => {
    const configDir = tempDir();
    const profile = { baseUrl: 'https://api.example.test/v1', apiKey: 'svc_live_abcdefghijklmnopqrstuvwxyz1234' };
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ currentProfile: 'ci', profiles: { ci: profile }, cursors: {} }), { mode: 0o600 });
    const env = (extra: Record<string, string>) => ({ env: { SVC_CONFIG_DIR: configDir, ...extra }, timeout: 20_000 });
    const plain = await svc(['profiles', 'ls'], env({ NODE_DISABLE_COMPILE_CACHE: '1' }));
    expect(plain.exitCode).toBe(0);
    expect(JSON.parse(plain.stdout)).toEqual({ name: 'ci', baseUrl: profile.baseUrl, apiKey: 'svc_live_…1234', webhookSecret: false, storage: 'file', default: true });
    const cacheHome = tempDir();
    const cache = join(cacheHome, 'svc', 'compile-cache');
    const runs = await Promise.all([
      svc(['profiles', 'ls'], env({ XDG_CACHE_HOME: cacheHome, TMPDIR: '/proc/svc-no-such-dir' })),
      svc(['profiles', 'ls'], env({ XDG_CACHE_HOME: join(configDir, 'no-such-dir', 'deeper'), TMPDIR: '/proc' })),
      svc(['profiles', 'ls'], env({ XDG_CACHE_HOME: join(configDir, 'config.json') })),
    ]);
    const again = await svc(['profiles', 'ls'], env({ XDG_CACHE_HOME: cacheHome }));
    // Node's cache: written in the user's cache home (<XDG_CACHE_HOME>/svc/compile-cache), on runtimes that have one.
    const written = hasCompileCache ? filesBelow(cache) : [];
    expect(written.length > 0).toBe(hasCompileCache);
    // Damaged cache files are refused by Node (a checksum), and the run is the same.
    for (const file of written) writeFileSync(file, 'not code');
    const damaged = await svc(['profiles', 'ls'], env({ XDG_CACHE_HOME: cacheHome }));
    for (const run of [...runs, again, damaged]) expect({ code: run.exitCode, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, stdout: plain.stdout, stderr: '' });
  });

  it('--debug stack traces name the source files and lines, with the cache on and off', async () => {
    const configDir = tempDir();
    const runs = await Promise.all([
      svc(['links', 'get', 'nope', '--debug'], { env: { SVC_CONFIG_DIR: configDir }, timeout: 20_000 }),
      svc(['links', 'get', 'nope'], { env: { SVC_CONFIG_DIR: configDir, SVC_DEBUG: '1', NODE_DISABLE_COMPILE_CACHE: '1' }, timeout: 20_000 }),
    ]);
    for (const run of runs) {
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toMatch(/\(.*src\/api\/checks\.ts:\d+:\d+\)/);
      expect(run.stderr).toMatch(/\(.*src\/commands\/links\/get\.ts:\d+:\d+\)/);
    }
  });
});
