/**
 * Profiles, keys and saved cursors, in one JSON file of mode 0600 (conf's format).
 * The file lives in SVC_CONFIG_DIR when set, else in the OS config directory (the one conf uses).
 *
 * Reads parse the file directly; writes go through safe-file.ts (never through a symbolic link; an
 * exclusive temp file with a random name beside it, renamed over it), in conf's file format.
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ExitCode, FailureError, SvcError, UsageError } from './errors.js';
import { withFileLock } from './file-lock.js';
import { isLoopbackHost } from './net.js';
import { replaceFile } from './safe-file.js';
import { checkCurrentProfile, checkCursor, checkProfile, isRecord, nullObject, readConfigFile, salvageProfile, type ConfigData, type Profile } from './config-file.js';

export type { KeyringRef, Profile } from './config-file.js';

/** Profile names: a name is a key in the config file and in the keyring, never `__proto__`. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Checks a profile name given by the user (exit 2 when it does not match the pattern). */
export function validateProfileName(name: string, source = '--profile'): string {
  // A key pasted in the wrong place is not repeated back.
  if (/^svc_live_/i.test(name)) throw new UsageError(`${source}: looks like an API key, not a profile name (keys are never taken as flag values; the value was not used)`);
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`${source}: not a valid profile name: ${JSON.stringify(name.slice(0, 80))} (letters, digits, _ . -; up to 64; starting with a letter or digit)`);
  }
  return name;
}

/** Exit 3: `profiles use` or `rm` of a profile that is not there. */
export function noSuchProfile(name: string, hint = 'see svc profiles ls'): SvcError {
  return new SvcError(`no profile named ${name}`, ExitCode.notFound, 'not_found', hint);
}

/** Where svc talks to when nothing else is configured: a sandbox started with `svc sandbox`. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/v1';
export const DEFAULT_PROFILE = 'default';
const CONFIG_NAME = 'config';
/**
 * A writer holds the config lock for milliseconds (read, write, fsync, rename); one holder keeping it
 * this long means trouble (a stopped process). Waiting behind many writers in turn is not limited.
 */
const LOCK_WAIT_MS = 30_000;
const LOCK_POLL_MS = 20;

export class ConfigStore {
  private directoryReady = false;

  private constructor(
    readonly directory: string,
    private data: ConfigData,
  ) {}

  static async open(env: NodeJS.ProcessEnv = process.env): Promise<ConfigStore> {
    const directory = env.SVC_CONFIG_DIR || osConfigDirectory(env);
    return new ConfigStore(directory, readConfigFile(join(directory, `${CONFIG_NAME}.json`)));
  }

  get path(): string {
    return join(this.directory, `${CONFIG_NAME}.json`);
  }

  /** The current profile's name; exit 2 when the file holds something else there. */
  get currentProfile(): string | undefined {
    return checkCurrentProfile(this.data.currentProfile);
  }

  /** Every profile, each checked (exit 2 at the first with a value of the wrong type). */
  profiles(): Record<string, Profile> {
    const all = Object.create(null) as Record<string, Profile>;
    for (const [name, value] of Object.entries(this.data.profiles)) all[name] = checkProfile(name, value);
    return all;
  }

  /** The names of the saved profiles, whatever their values hold. */
  profileNames(): string[] {
    return Object.keys(this.data.profiles);
  }

  /** The profile, checked: exit 2 naming the field and the fix when a value has the wrong type. */
  getProfile(name: string): Profile | undefined {
    return Object.hasOwn(this.data.profiles, name) ? checkProfile(name, this.data.profiles[name]) : undefined;
  }

  /**
   * For the commands that replace or remove a profile (`login`, `profiles rm`): a stored profile
   * with values of the wrong type is kept, in this run's copy only, with what is well-formed of it.
   */
  salvageProfile(name: string): Profile | undefined {
    if (!Object.hasOwn(this.data.profiles, name)) return undefined;
    const profile = salvageProfile(this.data.profiles[name], DEFAULT_BASE_URL);
    this.data.profiles[name] = profile;
    return profile;
  }

  /** The saved events-tail cursor, checked. */
  getCursor(profile: string, baseUrl: string): string | undefined {
    return checkCursor(profile, baseUrl, Object.hasOwn(this.data.cursors, profile) ? this.data.cursors[profile] : undefined);
  }

  async setCurrentProfile(name: string): Promise<void> {
    await this.update((data) => {
      data.currentProfile = name;
    });
  }

  async setProfile(name: string, profile: Profile): Promise<void> {
    await this.update((data) => {
      data.profiles[name] = profile;
    });
  }

  /** False when the file (as it is now) has no such profile. */
  async deleteProfile(name: string): Promise<boolean> {
    let found = false;
    await this.update((data) => {
      found = Object.hasOwn(data.profiles, name);
      if (!found) return false;
      delete data.profiles[name];
      delete data.cursors[name];
      if (data.currentProfile === name) delete data.currentProfile;
    });
    return found;
  }

  /** The whole file is replaced atomically (temp file + rename), so a kill never leaves half a cursor. */
  async setCursor(profile: string, baseUrl: string, cursor: string): Promise<void> {
    await this.update((data) => {
      const byUrl = Object.hasOwn(data.cursors, profile) ? data.cursors[profile] : undefined;
      const cursors = nullObject(isRecord(byUrl) ? byUrl : {});
      cursors[baseUrl] = cursor;
      data.cursors[profile] = cursors;
    });
  }

  get lockPath(): string {
    return `${this.path}.lock`;
  }

  /**
   * Applies one change to the file as it is on disk now, not to this process's copy from start-up:
   * another svc process (a login, a sandbox saving its profile, a tail saving its cursor) may have
   * written since. The read, the change and the write happen under a lock between processes, so two
   * writers never both start from the same content and one's change is never lost.
   */
  private async update(change: (data: ConfigData) => void | false): Promise<void> {
    this.prepareDirectory();
    await withFileLock(this.lockPath, { waitMs: LOCK_WAIT_MS, pollMs: LOCK_POLL_MS, busy: (who) => this.busy(who) }, async () => {
      const data = readConfigFile(this.path);
      if (change(data) === false) return;
      // conf's format (tab-indented JSON), mode 0600, replaced atomically and never through a link.
      await replaceFile(this.path, JSON.stringify(data, undefined, '\t'), { mode: 0o600 });
      this.data = data;
    });
  }

  private busy(who: string): FailureError {
    return new FailureError(
      `config file ${this.path} is held by another svc (${who}) for over ${LOCK_WAIT_MS / 1000} s; nothing was saved`,
      'config_locked',
      `try again; if no svc is running, remove ${this.lockPath}`,
    );
  }

  private prepareDirectory(): void {
    if (this.directoryReady) return;
    // The directory svc creates is private (0700). An existing one is left as it is.
    mkdirSync(this.directory, { recursive: true, mode: 0o700 });
    this.directoryReady = true;
  }
}

/** Checks a base URL: absolute, http(s), and plain http only for loopback hosts. Returns it without a trailing slash. */
export function validateBaseUrl(raw: string, source = '--base-url'): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${source}: not a URL: ${raw}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${source}: must be an https:// URL, got ${url.protocol}`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`${source}: http:// is only allowed for loopback hosts; use https://`);
  }
  if (url.search || url.hash) throw new UsageError(`${source}: must not carry a query or fragment`);
  if (url.username || url.password) throw new UsageError(`${source}: must not carry a user name or password (the API key authenticates)`);
  const normalized = url.toString().replace(/\/+$/, '');
  if (!normalized.endsWith('/v1')) throw new UsageError(`${source}: must end in /v1, the API's version segment (got ${normalized})`);
  return normalized;
}

/**
 * The OS config directory of svc, where conf keeps it (as env-paths names it): XDG_CONFIG_HOME or
 * ~/.config on Linux, ~/Library/Preferences on macOS, APPDATA on Windows. The home directory is
 * HOME where set (what os.homedir() answers on those systems), so a run does not load Node's os module.
 */
export function osConfigDirectory(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  const home = () => (platform !== 'win32' && env.HOME ? env.HOME : homedir());
  if (platform === 'darwin') return join(home(), 'Library', 'Preferences', 'svc');
  if (platform === 'win32') return join(env.APPDATA || join(home(), 'AppData', 'Roaming'), 'svc', 'Config');
  return join(env.XDG_CONFIG_HOME || join(home(), '.config'), 'svc');
}
