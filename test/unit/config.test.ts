import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import envPaths from 'env-paths';
import { describe, expect, it } from 'vitest';
import { ConfigStore, osConfigDirectory } from '../../src/core/config.js';
import { tempConfigDir } from '../helpers/svc.js';

const open = (dir: string) => ConfigStore.open({ SVC_CONFIG_DIR: dir });

describe('config store', () => {
  it('keeps what another process wrote since this one started', async () => {
    const dir = tempConfigDir();
    const tailX = await open(dir);
    const tailY = await open(dir);
    await tailX.setCursor('x', 'http://127.0.0.1:1/v1', 'c1');
    await tailY.setCursor('y', 'http://127.0.0.1:1/v1', 'd1');
    await tailX.setCursor('x', 'http://127.0.0.1:1/v1', 'c2');
    const fresh = await open(dir);
    expect(fresh.getCursor('x', 'http://127.0.0.1:1/v1')).toBe('c2');
    expect(fresh.getCursor('y', 'http://127.0.0.1:1/v1')).toBe('d1');
  });

  it('removing a profile removes its cursors only, even for names that share a prefix', async () => {
    const dir = tempConfigDir();
    const store = await open(dir);
    await store.setProfile('a', { baseUrl: 'https://x.test/v1' });
    await store.setProfile('a b', { baseUrl: 'https://x.test/v1' });
    await store.setCursor('a', 'https://x.test/v1', 'c-a');
    await store.setCursor('a b', 'https://x.test/v1', 'c-ab');
    await store.setCurrentProfile('a');
    expect(await store.deleteProfile('a')).toBe(true);
    const fresh = await open(dir);
    expect(Object.keys(fresh.profiles())).toEqual(['a b']);
    expect(fresh.getCursor('a b', 'https://x.test/v1')).toBe('c-ab');
    expect(fresh.getCursor('a', 'https://x.test/v1')).toBeUndefined();
    expect(fresh.currentProfile).toBeUndefined();
    expect(await fresh.deleteProfile('nope')).toBe(false);
  });

  it('writes the file with mode 0600', async () => {
    const store = await open(tempConfigDir());
    await store.setProfile('p', { baseUrl: 'https://x.test/v1', apiKey: 'svc_live_secret000000' });
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });
});

describe('the OS config directory', () => {
  it('is where conf (env-paths) keeps it, on each system', () => {
    const home = '/home/ada';
    expect([
      osConfigDirectory({ HOME: home }, 'linux'),
      osConfigDirectory({ HOME: home, XDG_CONFIG_HOME: '/cfg' }, 'linux'),
      osConfigDirectory({ HOME: home }, 'darwin'),
      osConfigDirectory({ APPDATA: 'C:/Users/ada/AppData/Roaming' }, 'win32'),
    ]).toEqual(['/home/ada/.config/svc', '/cfg/svc', '/home/ada/Library/Preferences/svc', 'C:/Users/ada/AppData/Roaming/svc/Config']);
    // Without HOME, the home directory as Node finds it.
    expect(osConfigDirectory({}, 'linux')).toBe(`${homedir()}/.config/svc`);
  });

  it('is the directory env-paths names on this system, for this environment', () => {
    expect(osConfigDirectory(process.env)).toBe(envPaths('svc', { suffix: '' }).config);
  });
});
