/**
 * The factory every command receives: lazy, cached access to IO, output, config, the resolved
 * profile, the API client and the prompter. Nothing is loaded until a command asks for it.
 */
import { ApiClient } from '../api/client.js';
import { AuthError, UsageError } from './errors.js';
import { IO, type IOStreams } from './io.js';
import { FORMATS, Output, type Format } from './output.js';
import { ConfigStore, DEFAULT_BASE_URL, DEFAULT_PROFILE, validateBaseUrl, type Profile } from './config.js';
import { inquirerPrompter, type Prompter } from './prompter.js';
import * as validate from './validate.js';

/** Global options as commander hands them over (strings; validated here). */
export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  output?: string;
  color?: boolean;
  input?: boolean;
  debug?: boolean;
  timeout?: string;
  maxRetries?: string;
  rate?: string;
  /** --fields of the command, already parsed and checked against its resource */
  fields?: string[];
}

export interface ResolvedProfile {
  /** the profile name: --profile, SVC_PROFILE, the one chosen with `profiles use`, else `default` */
  name: string;
  baseUrl: string;
  apiKey?: string;
  webhookSecret?: string;
  /** the stored profile, when there is one */
  stored?: Profile;
}

export class Context {
  readonly options: GlobalOptions;
  readonly io: IO;
  readonly format: Format;
  readonly debugEnabled: boolean;
  private configPromise?: Promise<ConfigStore>;
  private clientPromise?: Promise<ApiClient>;
  private outputPromise?: Promise<Output>;
  private prompterInstance?: Prompter;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly ratePerMinute: number;
  /** every client handed out, so close() releases all their keep-alive pools */
  private readonly clients: ApiClient[] = [];

  constructor(
    options: GlobalOptions,
    streams: IOStreams,
    readonly signal: AbortSignal,
  ) {
    options = { ...options, profile: typeof options.profile === 'string' ? options.profile : undefined };
    this.options = options;
    this.io = new IO(streams, { noColor: options.color === false, noInput: options.input === false });
    const env = streams.env;
    this.format = chooseFormat(options.output, this.io.stdoutIsTTY);
    this.debugEnabled = Boolean(options.debug) || env.SVC_DEBUG === '1';
    this.timeoutMs = (validate.positiveNumber(options.timeout, '--timeout') ?? 30) * 1000;
    this.maxRetries = validate.positiveInt(options.maxRetries, '--max-retries', 0) ?? 4;
    this.ratePerMinute = validate.positiveInt(options.rate, '--rate') ?? 3000;
  }

  get env(): NodeJS.ProcessEnv {
    return this.io.streams.env;
  }

  config(): Promise<ConfigStore> {
    this.configPromise ??= ConfigStore.open(this.env);
    return this.configPromise;
  }

  /** Which profile, base URL and key this invocation uses (env overrides profile). */
  async profile(): Promise<ResolvedProfile> {
    const config = await this.config();
    const name = this.options.profile || this.env.SVC_PROFILE || config.currentProfile || DEFAULT_PROFILE;
    const stored = config.getProfile(name);
    const baseUrl = this.options.baseUrl
      ? validateBaseUrl(this.options.baseUrl, '--base-url')
      : this.env.SVC_BASE_URL
        ? validateBaseUrl(this.env.SVC_BASE_URL, 'SVC_BASE_URL')
        : validateBaseUrl(stored?.baseUrl ?? DEFAULT_BASE_URL, `profile ${name} base URL`);
    const apiKey = (this.env.SVC_API_KEY || stored?.apiKey)?.trim();
    // A key pasted with a space or a line break inside cannot be sent as a header at all.
    if (apiKey && /[\s\x00-\x1f\x7f]/.test(apiKey)) {
      throw new AuthError(`the API key ${this.env.SVC_API_KEY ? 'in SVC_API_KEY' : `of profile ${name}`} contains spaces or control characters`);
    }
    return {
      name,
      baseUrl,
      apiKey: apiKey || undefined,
      webhookSecret: stored?.webhookSecret,
      stored,
    };
  }

  /** The API client for the resolved profile; exit 4 when no key is configured. */
  client(): Promise<ApiClient> {
    this.clientPromise ??= this.profile().then((profile) => {
      if (!profile.apiKey) {
        const explicit = this.options.profile || this.env.SVC_PROFILE;
        throw new AuthError(
          explicit && !profile.stored ? `no profile named ${profile.name}` : `no API key configured for profile ${profile.name}`,
          `run 'svc login${profile.name === DEFAULT_PROFILE ? '' : ` --profile ${profile.name}`}', set SVC_API_KEY, or start 'svc sandbox' and use --profile sandbox`,
        );
      }
      return this.clientFor(profile.baseUrl, profile.apiKey, profile.webhookSecret ? [profile.webhookSecret] : []);
    });
    return this.clientPromise;
  }

  /** A client for an explicit base URL and key (login checks a key before it is saved). */
  clientFor(baseUrl: string, apiKey: string, secrets: string[] = []): ApiClient {
    const client = new ApiClient({
      baseUrl,
      apiKey,
      timeoutMs: this.timeoutMs,
      maxRetries: this.maxRetries,
      ratePerMinute: this.ratePerMinute,
      debug: this.debugEnabled ? (line) => this.io.info(line) : undefined,
      notice: (line, waitMs = 0) => {
        // Short retries stay quiet in pipes; a wait long enough to look like a hang is always announced.
        if (line.startsWith('retrying') && !this.io.stderrIsTTY && !this.debugEnabled && waitMs < LONG_WAIT_MS) return;
        this.io.info(line.startsWith('retrying') ? `… ${line}` : `note: ${line}`);
      },
      secrets,
    });
    this.clients.push(client);
    return client;
  }

  output(): Promise<Output> {
    this.outputPromise ??= import('chalk').then(({ Chalk }) => new Output(this.io, this.format, Chalk, this.options.fields));
    return this.outputPromise;
  }

  prompter(): Prompter {
    this.prompterInstance ??= inquirerPrompter(this.signal);
    return this.prompterInstance;
  }

  /** Test seam: a client with a stubbed dispatcher (undici MockAgent) instead of the network. */
  setClient(client: ApiClient): void {
    this.clientPromise = Promise.resolve(client);
  }

  /** Test seam: scripted answers instead of a terminal. */
  setPrompter(prompter: Prompter): void {
    this.prompterInstance = prompter;
  }

  /** Releases the keep-alive pool so the process ends promptly. */
  async close(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.close()));
  }
}

const LONG_WAIT_MS = 5_000;

function chooseFormat(value: string | undefined, stdoutIsTTY: boolean): Format {
  if (value === undefined) return stdoutIsTTY ? 'table' : 'jsonl';
  if (!(FORMATS as readonly string[]).includes(value)) {
    throw new UsageError(`--output: must be one of ${FORMATS.join(', ')}, got ${value}`);
  }
  return value as Format;
}
