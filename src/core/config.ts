/**
 * Profiles, keys and saved cursors, stored with `conf` in one JSON file of mode 0600.
 * The file lives in SVC_CONFIG_DIR when set, else in the OS config directory chosen by conf.
 */
import type Conf from 'conf';
import { UsageError } from './errors.js';

export interface Profile {
  baseUrl: string;
  apiKey?: string;
  webhookSecret?: string;
}

interface ConfigData {
  currentProfile?: string;
  profiles: Record<string, Profile>;
  /** events-tail cursors, keyed by `<profile> <baseUrl>` */
  cursors: Record<string, string>;
}

/** Where svc talks to when nothing else is configured: a sandbox started with `svc sandbox`. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/v1';
export const DEFAULT_PROFILE = 'default';

export class ConfigStore {
  private constructor(private readonly conf: Conf<ConfigData>) {}

  static async open(env: NodeJS.ProcessEnv = process.env): Promise<ConfigStore> {
    const { default: ConfClass } = await import('conf');
    const conf = new ConfClass<ConfigData>({
      projectName: 'svc',
      projectSuffix: '',
      configName: 'config',
      cwd: env.SVC_CONFIG_DIR || undefined,
      configFileMode: 0o600,
      defaults: { profiles: {}, cursors: {} },
    });
    return new ConfigStore(conf);
  }

  get path(): string {
    return this.conf.path;
  }

  get currentProfile(): string | undefined {
    return this.conf.get('currentProfile');
  }

  setCurrentProfile(name: string): void {
    this.conf.set('currentProfile', name);
  }

  profiles(): Record<string, Profile> {
    return this.conf.get('profiles') ?? {};
  }

  getProfile(name: string): Profile | undefined {
    return this.profiles()[name];
  }

  setProfile(name: string, profile: Profile): void {
    this.conf.set('profiles', { ...this.profiles(), [name]: profile });
  }

  deleteProfile(name: string): boolean {
    const profiles = this.profiles();
    if (!(name in profiles)) return false;
    delete profiles[name];
    const cursors = Object.fromEntries(
      Object.entries(this.conf.get('cursors') ?? {}).filter(([key]) => !key.startsWith(`${name} `)),
    );
    this.conf.set({ profiles, cursors });
    if (this.currentProfile === name) this.conf.delete('currentProfile');
    return true;
  }

  getCursor(profile: string, baseUrl: string): string | undefined {
    return (this.conf.get('cursors') ?? {})[`${profile} ${baseUrl}`];
  }

  /** conf writes the whole file atomically (temp file + rename), so a kill never leaves half a cursor. */
  setCursor(profile: string, baseUrl: string, cursor: string): void {
    this.conf.set('cursors', { ...(this.conf.get('cursors') ?? {}), [`${profile} ${baseUrl}`]: cursor });
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
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
  return url.toString().replace(/\/+$/, '');
}
