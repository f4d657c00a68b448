/**
 * Where keys and webhook secrets live when the OS offers a credential store: macOS Keychain,
 * Windows Credential Manager, the Secret Service on Linux (gnome-keyring, KWallet), through the
 * prebuilt native binding @napi-rs/keyring. The binding is loaded only when a secret is actually
 * read from or written to the keyring, so commands whose key is in the config file never pay for it.
 *
 * Every call is bounded by a time-out (3 s): a keyring that hangs (a locked collection waiting for a
 * prompt nobody sees) counts as unavailable. Tests inject their own SecretStore.
 */

export interface SecretStore {
  /** shown to people: `keyring` */
  readonly label: string;
  /** Saves a secret; false when no usable store (the caller then keeps it in the 0600 file). */
  set(account: string, secret: string): Promise<boolean>;
  /** The secret, undefined when the store has none; throws SecretStoreError when the store cannot be used. */
  get(account: string): Promise<string | undefined>;
  /** Removes a secret; false when the store cannot be used (nothing to do when it has none). */
  delete(account: string): Promise<boolean>;
}

export class SecretStoreError extends Error {}

export const KEYRING_SERVICE = 'svc';
export const KEYRING_TIMEOUT_MS = 3_000;

type KeyringModule = typeof import('@napi-rs/keyring');

/**
 * The OS keyring. `SVC_KEYRING=0` (or `off`) turns it off: keys then go to the config file, as on a
 * machine without a keyring (for CI images and tests that must not touch a developer's keyring).
 */
export function osKeyring(
  env: NodeJS.ProcessEnv,
  timeoutMs = KEYRING_TIMEOUT_MS,
  loadModule: () => Promise<KeyringModule> = () => import('@napi-rs/keyring'),
): SecretStore {
  const disabled = env.SVC_KEYRING === '0' || env.SVC_KEYRING?.toLowerCase() === 'off';
  let module: Promise<KeyringModule | undefined> | undefined;
  // A binding that cannot load (no prebuilt binary for this platform) is the same as no keyring.
  const load = () => (module ??= disabled ? Promise.resolve(undefined) : loadModule().catch(() => undefined));

  // On Linux only the Secret Service keeps a secret across reboots; the kernel keyring (the binding's
  // fallback) forgets it, so it is not used.
  const entry = (keyring: KeyringModule, account: string) => new keyring.AsyncEntry(KEYRING_SERVICE, account, { linux: { store: 'secret-service' } });

  const bounded = async <T>(work: (keyring: KeyringModule, signal: AbortSignal) => Promise<T>): Promise<T> => {
    const keyring = await load();
    if (!keyring) throw new SecretStoreError('no OS keyring on this machine');
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new SecretStoreError(`the OS keyring did not answer within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      timer.unref?.();
    });
    try {
      return await Promise.race([work(keyring, controller.signal), timeout]);
    } catch (error) {
      if (error instanceof SecretStoreError) throw error;
      throw new SecretStoreError(`the OS keyring is not usable (${error instanceof Error ? error.message : String(error)})`);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    label: 'keyring',
    async set(account, secret) {
      try {
        await bounded((keyring, signal) => entry(keyring, account).setPassword(secret, signal));
        // Some stores accept a write they cannot give back (no unlocked collection): read it back to be sure.
        return (await bounded((keyring, signal) => entry(keyring, account).getPassword(signal))) === secret;
      } catch {
        return false;
      }
    },
    async get(account) {
      const value = await bounded((keyring, signal) => entry(keyring, account).getPassword(signal));
      return value ?? undefined;
    },
    async delete(account) {
      try {
        await bounded((keyring, signal) => entry(keyring, account).deletePassword(signal));
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** A store that keeps nothing: every secret goes to the file. */
export const NO_SECRET_STORE: SecretStore = {
  label: 'keyring',
  set: async () => false,
  get: async () => {
    throw new SecretStoreError('no OS keyring on this machine');
  },
  delete: async () => false,
};

/** An in-memory store, for tests. */
export function memorySecretStore(): SecretStore & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    label: 'keyring',
    entries,
    set: async (account, secret) => (entries.set(account, secret), true),
    get: async (account) => entries.get(account),
    delete: async (account) => (entries.delete(account), true),
  };
}
