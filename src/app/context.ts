/**
 * The factory every command receives: lazy, cached access to IO, output, config, the resolved
 * profile, the API client and the prompter. Nothing is loaded until a command asks for it.
 */
import type { Command } from 'commander';
import type { ApiClient } from '../api/client.js';
import { noticeText, proxyText, type ClientEventSink } from '../api/client-events.js';
import { proxySettings, type ProxySettings } from '../api/proxy.js';
import { AuthError, UsageError } from '../core/errors.js';
import { IO, type IOStreams } from '../core/io.js';
import { FORMATS, Output, type Format } from '../core/output.js';
import { CUSTOM_FIELD, resolveCustomFields, type FieldLabel } from '../core/field-paths.js';
import { ConfigStore, DEFAULT_BASE_URL, DEFAULT_PROFILE, validateBaseUrl, validateProfileName, type Profile } from '../core/config.js';
import { osKeyring, SecretStoreError, type SecretStore } from '../core/secret-store.js';
import { inquirerPrompter, type Prompter } from '../core/prompter.js';
import * as validate from '../core/validate.js';
import type { declareGlobals } from './globals.js';
import type { OptionsOf } from './commander.js';
import { jsonText, terminalSafeLine } from '../core/sanitize.js';

/**
 * Global options as commander hands them over (strings; validated here), typed from their declaration,
 * with the options of the command that the Context reads too.
 */
export type GlobalOptions = Partial<OptionsOf<typeof declareGlobals>> & {
  /** --fields of the command, already parsed and checked against its resource */
  fields?: string[];
  /** --dry-run of a changing command: print each changing request instead of sending it */
  dryRun?: boolean;
};

/** A global option given for this run (on the command line or by its environment variable), as commander parsed it. */
export interface GivenGlobal {
  /** the long flag, e.g. --profile, --no-color */
  flag: string;
  /** its value; true or false for a flag without one */
  value: string | boolean;
}

/** What the run hands the factory besides the options: the given globals (for hints) and the whole command tree (for completions). */
export interface RunInfo {
  given: GivenGlobal[];
  tree: () => Promise<Command>;
}

export interface ResolvedProfile {
  /** the profile name: --profile, SVC_PROFILE, the one chosen with `profiles use`, else `default` */
  name: string;
  baseUrl: string;
  apiKey?: string;
  webhookSecret?: string;
  /** the stored profile, when there is one */
  stored?: Profile;
  /** why the key kept in the OS keyring could not be read (reported when the key is needed) */
  keyError?: AuthError;
}

/** What a run may be given in place of the real thing (tests): `main(argv, streams, deps)` hands it to the run's Context. */
export interface Dependencies {
  /** the OS keyring otherwise */
  secretStore?: SecretStore;
  /** prompts at the terminal (@inquirer/prompts) otherwise */
  prompter?: Prompter;
  /** the client of the resolved profile otherwise */
  client?: ApiClient;
}

/** A Context's parts: the run's options, streams and interrupt signal, and its dependencies. */
export interface ContextParts extends Dependencies {
  options: GlobalOptions;
  streams: IOStreams;
  signal: AbortSignal;
  run?: RunInfo;
}

const NO_RUN_INFO: RunInfo = { given: [], tree: () => Promise.reject(new Error('no command tree in this run')) };

export class Context {
  readonly options: GlobalOptions;
  readonly io: IO;
  readonly format: Format;
  readonly debugEnabled: boolean;
  private configPromise?: Promise<ConfigStore>;
  private clientPromise?: Promise<ApiClient>;
  private outputPromise?: Promise<Output>;
  private prompterInstance?: Prompter;
  private secretStoreInstance?: SecretStore;
  /** keyring reads of this run, by account: each secret is asked for once */
  private readonly keyringLookups = new Map<string, Promise<string>>();
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly ratePerMinute: number;
  /** every client handed out, so close() releases all their keep-alive pools */
  private readonly clients: ApiClient[] = [];

  readonly signal: AbortSignal;
  private readonly run: RunInfo;

  /** Everything the run's commands need comes in here; what a test passes in place of the real thing is used as given. */
  constructor({ options, streams, signal, run = NO_RUN_INFO, secretStore, prompter, client }: ContextParts) {
    this.signal = signal;
    this.run = run;
    this.secretStoreInstance = secretStore;
    this.prompterInstance = prompter;
    this.clientPromise = client && Promise.resolve(client);
    options = { ...options, profile: typeof options.profile === 'string' ? options.profile : undefined };
    this.options = options;
    this.io = new IO(streams, { noColor: options.color === false, noInput: options.input === false, signal });
    const env = streams.env;
    this.format = chooseFormat(options.output, this.io.stdoutIsTTY, options.jq !== undefined);
    this.debugEnabled = Boolean(options.debug) || env.SVC_DEBUG === '1';
    this.timeoutMs = (validate.positiveNumber(options.timeout, '--timeout') ?? 30) * 1000;
    this.maxRetries = validate.positiveInt(options.maxRetries, '--max-retries', 0) ?? 4;
    this.ratePerMinute = validate.positiveInt(options.rate, '--rate') ?? 3000;
  }

  /** The global options given for this run, to repeat them in a hint (the next page's command). */
  get givenGlobals(): readonly GivenGlobal[] {
    return this.run.given;
  }

  /** The whole command tree, every verb declared (completions). */
  commandTree(): Promise<Command> {
    return this.run.tree();
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
    const explicitName = this.options.profile || this.env.SVC_PROFILE;
    if (explicitName) validateProfileName(explicitName, this.options.profile ? '--profile' : 'SVC_PROFILE');
    const name = explicitName || config.currentProfile || DEFAULT_PROFILE;
    const stored = config.getProfile(name);
    const baseUrl = this.options.baseUrl
      ? validateBaseUrl(this.options.baseUrl, '--base-url')
      : this.env.SVC_BASE_URL
        ? validateBaseUrl(this.env.SVC_BASE_URL, 'SVC_BASE_URL')
        : validateBaseUrl(stored?.baseUrl ?? DEFAULT_BASE_URL, `profile ${name} base URL`);
    // Secrets kept in the OS keyring are read here (once per run), so every caller sees them; a keyring
    // that cannot be read leaves the key undefined and the reason for client() to report.
    let keyError: AuthError | undefined;
    const [fromKeyring, secretFromKeyring] = await Promise.all([
      this.env.SVC_API_KEY || stored?.apiKey ? undefined : this.keyringSecret(name, stored, 'apiKey').catch((error: AuthError) => void (keyError = error)),
      stored?.webhookSecret ? undefined : this.keyringSecret(name, stored, 'webhookSecret').catch(() => undefined),
    ]);
    const apiKey = (this.env.SVC_API_KEY || stored?.apiKey || fromKeyring || undefined)?.trim();
    // A key pasted with a space or a line break inside cannot be sent as a header at all.
    if (apiKey && /[\s\x00-\x1f\x7f]/.test(apiKey)) {
      throw new AuthError(`the API key ${this.env.SVC_API_KEY ? 'in SVC_API_KEY' : `of profile ${name}`} contains spaces or control characters`);
    }
    return {
      name,
      baseUrl,
      apiKey: apiKey || undefined,
      webhookSecret: stored?.webhookSecret ?? secretFromKeyring,
      stored,
      ...(keyError ? { keyError } : {}),
    };
  }

  /** The OS keyring (loaded only when a secret is read from or written to it). */
  secretStore(): SecretStore {
    this.secretStoreInstance ??= osKeyring(this.env);
    return this.secretStoreInstance;
  }

  /**
   * A profile's key or webhook secret kept in the OS keyring (undefined when the profile keeps it in
   * the file, or has none). A keyring that cannot be read now is exit 4, naming the profile.
   */
  async keyringSecret(name: string, stored: Profile | undefined, which: 'apiKey' | 'webhookSecret'): Promise<string | undefined> {
    if (!stored?.keyring?.[which]) return undefined;
    const account = `${stored.keyring.account}/${which}`;
    let lookup = this.keyringLookups.get(account);
    if (!lookup) {
      lookup = this.readKeyring(name, account, which);
      this.keyringLookups.set(account, lookup);
    }
    return lookup;
  }

  private async readKeyring(name: string, account: string, which: 'apiKey' | 'webhookSecret'): Promise<string> {
    const what = which === 'apiKey' ? 'API key' : 'webhook secret';
    let value: string | undefined;
    try {
      value = await this.secretStore().get(account);
    } catch (error) {
      const reason = error instanceof SecretStoreError ? error.message : String(error);
      throw new AuthError(`the ${what} of profile ${name} is in the OS keyring, which cannot be read now: ${reason}`, `unlock the keyring, or set ${which === 'apiKey' ? 'SVC_API_KEY' : 'SVC_WEBHOOK_SECRET'}`);
    }
    if (value === undefined) throw new AuthError(`the ${what} of profile ${name} is missing from the OS keyring`, `run 'svc login${name === DEFAULT_PROFILE ? '' : ` --profile ${name}`}' again`);
    return value;
  }

  /** The API client for the resolved profile; exit 4 when no key is configured. */
  client(): Promise<ApiClient> {
    this.clientPromise ??= this.profile().then(async (profile) => {
      // A saved key goes only to the base URL it was saved with: another URL named by --base-url or
      // SVC_BASE_URL is refused before anything is sent. SVC_API_KEY goes wherever the caller points it.
      const savedKey = !this.env.SVC_API_KEY && (profile.stored?.apiKey || profile.stored?.keyring?.apiKey);
      if (savedKey && profile.stored && validateBaseUrl(profile.stored.baseUrl, `profile ${profile.name} base URL`) !== profile.baseUrl) {
        throw new UsageError(
          `${this.options.baseUrl ? '--base-url' : 'SVC_BASE_URL'}: the key of profile ${profile.name} belongs to ${profile.stored.baseUrl}; it is not sent to ${profile.baseUrl}`,
          `log in to that URL with 'svc login --profile <name> --base-url ${profile.baseUrl}', or pass its key in SVC_API_KEY`,
        );
      }
      if (!profile.apiKey && profile.keyError) throw profile.keyError;
      if (!profile.apiKey) {
        const explicit = this.options.profile || this.env.SVC_PROFILE;
        throw new AuthError(
          explicit && !profile.stored ? `no profile named ${profile.name}` : `no API key configured for profile ${profile.name}`,
          `run 'svc login${profile.name === DEFAULT_PROFILE ? '' : ` --profile ${profile.name}`}', set SVC_API_KEY, or start 'svc sandbox' and use --profile sandbox`,
        );
      }
      return await this.clientFor(profile.baseUrl, profile.apiKey!, profile.webhookSecret ? [profile.webhookSecret] : []);
    });
    return this.clientPromise;
  }

  /**
   * A client for an explicit base URL and key (login checks a key before it is saved). The HTTP core
   * is loaded here, by the first command that calls the API (a run that only reads the config never does).
   */
  async clientFor(baseUrl: string, apiKey: string, secrets: string[] = []): Promise<ApiClient> {
    const { ApiClient } = await import('../api/client.js');
    const client = new ApiClient({
      baseUrl,
      apiKey,
      timeoutMs: this.timeoutMs,
      maxRetries: this.maxRetries,
      ratePerMinute: this.ratePerMinute,
      // Debug lines quote the server's answers: shown with control characters made visible.
      debug: this.debugEnabled ? (line) => this.io.info(terminalSafeLine(line)) : undefined,
      onEvent: this.clientEvents(),
      secrets,
      proxy: this.proxy(),
      dryRun: this.options.dryRun ? (request) => this.io.write(`${jsonText(request, undefined, this.io.stdoutIsTTY)}\n`) : undefined,
    });
    this.clients.push(client);
    return client;
  }

  /**
   * How a person sees what a client reports: a spinner while calls wait, a notice per retry (short
   * ones stay quiet in pipes; a wait long enough to look like a hang is always announced) and per
   * replay, the proxy with --debug.
   */
  private clientEvents(): ClientEventSink {
    const waits = new Map<number, () => void>();
    return (event) => {
      switch (event.type) {
        case 'wait':
          if (event.phase === 'start') {
            waits.set(event.call, this.io.networkWait());
          } else {
            waits.get(event.call)?.();
            waits.delete(event.call);
          }
          return;
        case 'proxy':
          if (this.debugEnabled) this.io.info(terminalSafeLine(proxyText(event)));
          return;
        case 'retry':
          if (!this.io.stderrIsTTY && !this.debugEnabled && event.waitMs < LONG_WAIT_MS) return;
          this.io.info(terminalSafeLine(`… ${noticeText(event)}`));
          return;
        case 'replayed':
          this.io.info(terminalSafeLine(`note: ${noticeText(event)}`));
      }
    };
  }

  /**
   * Before the verb runs: with --jq, loads jq and checks the program (exit 2 before any request), and
   * puts it in front of stdout.
   */
  async start(): Promise<void> {
    const program = this.options.jq;
    if (program === undefined) return;
    if (program.trim() === '') throw new UsageError('--jq: empty program');
    const { JqProgram, JqStdout } = await import('../core/jq.js');
    const compiled = await JqProgram.compile(program);
    this.io.filterStdout(new JqStdout(compiled, this.format === 'json', (text) => this.io.writeStdout(text), this.io.stdoutIsTTY));
  }

  /** After the verb has run: what --jq still holds (a whole `-o json` document) goes through it. */
  async finish(): Promise<void> {
    await this.io.endStdout();
  }

  /** HTTPS_PROXY, HTTP_PROXY and NO_PROXY (lower-case forms first) for every request svc sends; undefined when none is set. */
  proxy(): ProxySettings | undefined {
    return proxySettings(this.env);
  }

  output(): Promise<Output> {
    // chalk loads with the first output, not at start-up (docs/performance.md).
    this.outputPromise ??= import('chalk').then(async ({ Chalk }) => {
      const fields = this.options.fields?.some((path) => path.startsWith(CUSTOM_FIELD)) ? resolveCustomFields(this.options.fields, await this.customFieldLabels()) : this.options.fields;
      return new Output(this.io, this.format, Chalk, fields, () => this.customFieldLabels());
    });
    return this.outputPromise;
  }

  /** The account's custom fields (id and label) from GET /me, read once per run; none when it cannot be read. */
  private async customFieldLabels(): Promise<FieldLabel[]> {
    const { namesFor } = await import('./names.js');
    const names = await namesFor(await this.client(), this.signal);
    return [...names.fields].map(([id, label]) => ({ id, label }));
  }

  prompter(): Prompter {
    this.prompterInstance ??= inquirerPrompter(this.signal);
    return this.prompterInstance;
  }

  /** Releases the keep-alive pool so the process ends promptly. */
  async close(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.close()));
  }
}

const LONG_WAIT_MS = 5_000;

function chooseFormat(value: string | undefined, stdoutIsTTY: boolean, jq: boolean): Format {
  // --jq works on JSON: JSON lines unless -o json asks for the whole document.
  if (jq && value !== undefined && value !== 'json' && value !== 'jsonl') throw new UsageError(`--jq: works on JSON output (-o json or -o jsonl), not -o ${value}`);
  if (value === undefined) return stdoutIsTTY && !jq ? 'table' : 'jsonl';
  if (!(FORMATS as readonly string[]).includes(value)) {
    throw new UsageError(`--output: must be one of ${FORMATS.join(', ')}, got ${value}`);
  }
  return value as Format;
}
