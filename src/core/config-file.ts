/**
 * Reading the config file: JSON parsed with no prototype anywhere (`__proto__` and `constructor` are
 * ordinary members), and each value checked when it is read. A value of the wrong type (an `apiKey`
 * that is a number, a cursor that is an object) is exit 2 naming the profile, the field and the fix;
 * the file itself is left as it is, and a write keeps every other member, unknown ones included.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { UsageError } from './errors.js';

export interface Profile {
  baseUrl: string;
  /** in the file only where no OS keyring was usable (or saved before keys went to the keyring) */
  apiKey?: string;
  webhookSecret?: string;
  /** which secrets are in the OS keyring instead, under `account` (see secret-store.ts) */
  keyring?: KeyringRef;
}

export interface KeyringRef {
  /** the keyring account prefix: `<profile>/<random>`, so two config directories never share an entry */
  account: string;
  apiKey?: boolean;
  webhookSecret?: boolean;
  /** the key as `profiles ls` shows it (`svc_live_…abcd`), so listing never reads the keyring */
  maskedKey?: string;
}

/** The file as read: members svc does not know are kept as they are. */
export interface ConfigData {
  currentProfile?: unknown;
  /** profile name → profile, each checked when read */
  profiles: Record<string, unknown>;
  /** events-tail cursors: profile name → base URL → cursor, each checked when read */
  cursors: Record<string, unknown>;
  [other: string]: unknown;
}

/** A value of the wrong type in the config file (exit 2), naming the profile when it is one's. */
export class ConfigValueError extends UsageError {
  constructor(
    message: string,
    hint: string,
    readonly profile?: string,
  ) {
    super(message, hint);
  }
}

export function readConfigFile(path: string): ConfigData {
  refuseOddFile(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { profiles: Object.create(null), cursors: Object.create(null) };
  }
  let parsed: unknown;
  try {
    parsed = parseWithoutPrototypes(text);
  } catch {
    throw new UsageError(`config file ${path} is not valid JSON; fix or remove it`);
  }
  if (!isRecord(parsed)) throw new UsageError(`config file ${path} does not hold a JSON object; fix or remove it`);
  for (const member of ['profiles', 'cursors'] as const) {
    if (parsed[member] === undefined) parsed[member] = Object.create(null);
    else if (!isRecord(parsed[member])) throw new UsageError(`config file ${path}: ${member} is ${describe(parsed[member])}, not an object; fix or remove it`);
  }
  return parsed as ConfigData;
}

/** JSON.parse, with every object made without a prototype: no member is ever inherited. */
export function parseWithoutPrototypes(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => (isRecord(value) ? nullObject(value) : value));
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy without a prototype: names such as `constructor` or `__proto__` are then only keys. */
export function nullObject<T extends object>(value: T): T {
  const copy = Object.create(null) as T;
  for (const [key, entry] of Object.entries(value)) Object.defineProperty(copy, key, { value: entry, enumerable: true, writable: true, configurable: true });
  return copy;
}

const fixProfile = (name: string) => `run 'svc login --profile ${name}' to save it again, or 'svc profiles rm ${name}'`;

/** The stored profile `name`, checked: exit 2 naming the field when a value has the wrong type. */
export function checkProfile(name: string, value: unknown): Profile {
  const wrong = (field: string, got: unknown, want: string) =>
    new ConfigValueError(`config: profile ${name}: ${field} is ${describe(got)}, not ${want}`, fixProfile(name), name);
  if (!isRecord(value)) throw wrong('the profile', value, 'an object');
  for (const field of ['baseUrl', 'apiKey', 'webhookSecret'] as const) {
    if (value[field] !== undefined && typeof value[field] !== 'string') throw wrong(field, value[field], 'a string');
  }
  if (value.baseUrl === undefined) throw new ConfigValueError(`config: profile ${name}: baseUrl is missing`, fixProfile(name), name);
  const keyring = value.keyring;
  if (keyring !== undefined) {
    if (!isRecord(keyring)) throw wrong('keyring', keyring, 'an object');
    if (typeof keyring.account !== 'string') throw wrong('keyring.account', keyring.account, 'a string');
    for (const field of ['apiKey', 'webhookSecret'] as const) {
      if (keyring[field] !== undefined && typeof keyring[field] !== 'boolean') throw wrong(`keyring.${field}`, keyring[field], 'true or false');
    }
    if (keyring.maskedKey !== undefined && typeof keyring.maskedKey !== 'string') throw wrong('keyring.maskedKey', keyring.maskedKey, 'a string');
  }
  return value as unknown as Profile;
}

/**
 * What is well-formed of a stored profile that `checkProfile` refuses, for the two commands that
 * replace or remove it (`login`, `profiles rm`): the rest is dropped from this run's copy.
 */
export function salvageProfile(value: unknown, fallbackBaseUrl: string): Profile {
  const record = isRecord(value) ? value : {};
  const profile: Profile = { baseUrl: typeof record.baseUrl === 'string' ? record.baseUrl : fallbackBaseUrl };
  if (typeof record.apiKey === 'string') profile.apiKey = record.apiKey;
  if (typeof record.webhookSecret === 'string') profile.webhookSecret = record.webhookSecret;
  const keyring = record.keyring;
  if (isRecord(keyring) && typeof keyring.account === 'string') {
    profile.keyring = { account: keyring.account };
    if (keyring.apiKey === true) profile.keyring.apiKey = true;
    if (keyring.webhookSecret === true) profile.keyring.webhookSecret = true;
    if (typeof keyring.maskedKey === 'string') profile.keyring.maskedKey = keyring.maskedKey;
  }
  return profile;
}

/** The saved events-tail cursor of `profile` for `baseUrl`, checked. */
export function checkCursor(profile: string, baseUrl: string, byUrl: unknown): string | undefined {
  const fix = `run 'svc events tail --resume --from-start' to save a new one, or 'svc profiles rm ${profile}'`;
  if (byUrl === undefined) return undefined;
  if (!isRecord(byUrl)) throw new ConfigValueError(`config: profile ${profile}: its saved cursors are ${describe(byUrl)}, not an object`, fix, profile);
  const cursor = Object.hasOwn(byUrl, baseUrl) ? byUrl[baseUrl] : undefined;
  if (cursor !== undefined && typeof cursor !== 'string') {
    throw new ConfigValueError(`config: profile ${profile}: the saved cursor for ${baseUrl} is ${describe(cursor)}, not a string`, fix, profile);
  }
  return cursor;
}

/** The current profile's name as stored, checked. */
export function checkCurrentProfile(value: unknown): string | undefined {
  if (value === undefined || typeof value === 'string') return value || undefined;
  throw new UsageError(`config: currentProfile is ${describe(value)}, not a profile name`, "run 'svc profiles use <name>' to set it again");
}

/** How a wrong value is named in a message (never the value itself: it may be a key). */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/**
 * A config file that is a symbolic link is refused: svc would write keys wherever it points (a file
 * another user controls, or one shared with other programs).
 */
function refuseOddFile(path: string): void {
  let stats;
  try {
    stats = lstatSync(path);
  } catch {
    return;
  }
  if (stats.isSymbolicLink()) throw new UsageError(`config file ${path} is a symbolic link; svc keeps keys only in a regular file (replace the link with the file itself)`);
  // A fifo would hold the read forever (no signal ends it).
  if (!stats.isFile()) throw new UsageError(`config file ${path} is not a regular file; svc keeps keys only in a regular file (remove it)`);
}
