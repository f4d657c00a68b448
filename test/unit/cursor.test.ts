/** The saved event cursor: one per profile and base URL, so two services never share a position. */
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cleanup.js';
import { ConfigStore } from '../../src/core/config.js';

const open = (dir: string) => ConfigStore.open({ SVC_CONFIG_DIR: dir });

describe('saved cursor', () => {
  it('is kept per base URL within a profile, and a new one replaces only its own', async () => {
    const dir = tempDir();
    const store = await open(dir);
    expect(store.getCursor('p', 'https://a.test/v1')).toBeUndefined();
    await store.setCursor('p', 'https://a.test/v1', 'a1');
    await store.setCursor('p', 'https://b.test/v1', 'b1');
    await store.setCursor('p', 'https://a.test/v1', 'a2');
    const fresh = await open(dir);
    expect([fresh.getCursor('p', 'https://a.test/v1'), fresh.getCursor('p', 'https://b.test/v1')]).toEqual(['a2', 'b1']);
    expect(fresh.getCursor('q', 'https://a.test/v1')).toBeUndefined();
    expect(store.getCursor('p', 'https://a.test/v1')).toBe('a2');
  });
});
