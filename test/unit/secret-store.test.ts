import { describe, expect, it } from 'vitest';
import { osKeyring, SecretStoreError } from '../../src/core/secret-store.js';

type Module = typeof import('@napi-rs/keyring');

/** A stand-in for the native binding: every call takes `behaviour`'s course. */
function fakeBinding(behaviour: 'hang' | 'fail' | 'work', calls: string[] = []): () => Promise<Module> {
  const store = new Map<string, string>();
  class AsyncEntry {
    constructor(
      readonly service: string,
      readonly account: string,
      readonly options: unknown,
    ) {
      calls.push(`${service}|${account}|${JSON.stringify(options)}`);
    }
    private run<T>(value: () => T): Promise<T> {
      if (behaviour === 'hang') return new Promise<T>(() => undefined);
      if (behaviour === 'fail') return Promise.reject(new Error('Platform failure: no D-Bus'));
      return Promise.resolve(value());
    }
    setPassword(password: string) {
      return this.run(() => void store.set(this.account, password));
    }
    getPassword() {
      return this.run(() => store.get(this.account) ?? null);
    }
    deletePassword() {
      return this.run(() => store.delete(this.account));
    }
  }
  return async () => ({ AsyncEntry }) as unknown as Module;
}

describe('OS keyring store', () => {
  it('saves, reads back and deletes through the Secret Service only (never the kernel keyring)', async () => {
    const calls: string[] = [];
    const store = osKeyring({}, 3_000, fakeBinding('work', calls));
    expect(await store.set('p/abc/apiKey', 'svc_live_x')).toBe(true);
    expect(await store.get('p/abc/apiKey')).toBe('svc_live_x');
    expect(await store.delete('p/abc/apiKey')).toBe(true);
    expect(await store.get('p/abc/apiKey')).toBeUndefined();
    expect(new Set(calls)).toEqual(new Set(['svc|p/abc/apiKey|{"linux":{"store":"secret-service"}}']));
  });

  it('a keyring that does not answer counts as unavailable after the time-out', async () => {
    const store = osKeyring({}, 50, fakeBinding('hang'));
    const started = performance.now();
    expect(await store.set('a', 'b')).toBe(false);
    await expect(store.get('a')).rejects.toThrow(new SecretStoreError('the OS keyring did not answer within 0.05 s'));
    expect(await store.delete('a')).toBe(false);
    // Three calls bounded by 0.05 s each; the default 3 s time-out would have taken 9 s.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('a failing or missing binding, or SVC_KEYRING=0, means no keyring: set is false, get throws', async () => {
    for (const store of [
      osKeyring({}, 3_000, fakeBinding('fail')),
      osKeyring({}, 3_000, () => Promise.reject(new Error('Cannot find module'))),
      osKeyring({ SVC_KEYRING: '0' }, 3_000, () => expect.fail('loaded although turned off')),
    ]) {
      expect(await store.set('a', 'b')).toBe(false);
      await expect(store.get('a')).rejects.toBeInstanceOf(SecretStoreError);
    }
  });
});
