import { randomBytes } from 'node:crypto';
import { getMe } from '../api/resources.js';
import type { Me } from '../api/types.js';
import type { Profile } from '../core/config.js';
import { ConfigValueError } from '../core/config-file.js';
import type { Context } from '../app/context.js';
import type { OptionsOf } from '../app/verb.js';
import { ApiError, UsageError } from '../core/errors.js';
import { MASKED_KEY, isApiKeyFormat, maskKey } from '../api/keys.js';
import { readStdinLines } from '../core/stdin.js';
import { terminalSafeLine } from '../core/sanitize.js';
import type { Command } from '@commander-js/extra-typings';
import { examples } from './declare.js';

type Options = OptionsOf<typeof declare>;

const SECRET_FORMAT = /^[0-9a-fA-F]{64}$/;
/** A person at the terminal gets this many tries at pasting a key. */
const MAX_ATTEMPTS = 5;

export function declare(command: Command) {
  return command
    .description('check an API key with GET /me and save it in a profile')
    .option('--api-key-stdin', 'read the API key from standard input instead of prompting')
    .option('--webhook-secret-stdin', 'also read the webhook secret from standard input (the line after the key)')
    .addHelpText('after', examples('svc login', 'printf "%s\\n" "$KEY" | svc login --profile ci --api-key-stdin', 'svc login --profile staging --base-url https://api.example.test/v1'));
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<void> {
  // The same profile and base URL every other command would use (--profile, SVC_PROFILE, `profiles use`).
  const config = await ctx.config();
  const { name, baseUrl, stored: existing } = await profileToReplace(ctx);

  // On a terminal a refused answer is asked again with the reason; from stdin it is the end (exit 2 or 4).
  const prompted = !opts.apiKeyStdin;
  let apiKey: string;
  let webhookSecret: string | undefined;
  let me: Me;
  for (let attempt = 1; ; attempt++) {
    ({ apiKey, webhookSecret } = await readCredentials(ctx, opts));
    const retry = prompted && attempt < MAX_ATTEMPTS;
    if (!isApiKeyFormat(apiKey)) {
      if (retry) {
        ctx.io.info(`That is not a key of the form ${MASKED_KEY} (${apiKey === '' ? 'nothing was pasted' : 'check what was pasted'}); try again.`);
        continue;
      }
      throw new UsageError(`API key: not a key of the form ${MASKED_KEY} (check what was pasted)`);
    }
    if (webhookSecret !== undefined && !SECRET_FORMAT.test(webhookSecret)) {
      if (retry) {
        ctx.io.info('The webhook secret must be the 64-character hex string shown when the key was created; try again.');
        continue;
      }
      throw new UsageError('webhook secret: must be the 64-character hex string shown when the key was created');
    }
    // Check the key before anything is written: a refused key leaves the stored profile as it was.
    try {
      me = (await getMe(await ctx.clientFor(baseUrl, apiKey, webhookSecret ? [webhookSecret] : []), { signal: ctx.signal })).body;
      break;
    } catch (error) {
      if (!(retry && error instanceof ApiError && error.status === 401)) throw error;
      ctx.io.info(terminalSafeLine(`${baseUrl} refused that key (${error.code}: ${error.message}); try again.`));
    }
  }

  const { profile, inKeyring } = await store(ctx, name, existing, baseUrl, apiKey, webhookSecret);
  await config.setProfile(name, profile);
  if (!config.currentProfile) await config.setCurrentProfile(name);
  ctx.io.info(
    terminalSafeLine(`Logged in as key ${me.key?.name ?? '?'} (${maskKey(apiKey)}, scopes ${(me.key?.scopes ?? []).join(', ')}) at ${baseUrl}; saved as profile ${name}.`),
  );
  const what = webhookSecret === undefined ? 'the key' : 'the key and webhook secret';
  ctx.io.info(inKeyring ? `Stored ${what} in the OS keyring.` : `note: no OS keyring is usable here; ${what} went to ${config.path} (mode 0600).`);
}

/**
 * The profile login saves into. A stored one with values of the wrong type is what login repairs:
 * what is well-formed of it (base URL, keyring account) is kept, the rest replaced.
 */
async function profileToReplace(ctx: Context): ReturnType<Context['profile']> {
  try {
    return await ctx.profile();
  } catch (error) {
    if (!(error instanceof ConfigValueError && error.profile !== undefined)) throw error;
    (await ctx.config()).salvageProfile(error.profile);
    return ctx.profile();
  }
}

/**
 * Puts the key (and a new webhook secret) in the OS keyring when one is usable, else in the 0600
 * config file. A webhook secret not given again stays where it was.
 */
async function store(
  ctx: Context,
  name: string,
  existing: Profile | undefined,
  baseUrl: string,
  apiKey: string,
  webhookSecret: string | undefined,
): Promise<{ profile: Profile; inKeyring: boolean }> {
  const keyring = ctx.secretStore();
  const account = existing?.keyring?.account ?? `${name}/${randomBytes(6).toString('hex')}`;
  const keyInKeyring = await keyring.set(`${account}/apiKey`, apiKey);
  let secretInKeyring = Boolean(existing?.keyring?.webhookSecret);
  let secretInFile = existing?.webhookSecret;
  if (webhookSecret !== undefined) {
    secretInKeyring = keyInKeyring && (await keyring.set(`${account}/webhookSecret`, webhookSecret));
    secretInFile = secretInKeyring ? undefined : webhookSecret;
  }
  // A key now in the file must not leave an older one behind in the keyring (and the other way round).
  if (!keyInKeyring && existing?.keyring?.apiKey) await keyring.delete(`${account}/apiKey`);
  if (webhookSecret !== undefined && !secretInKeyring && existing?.keyring?.webhookSecret) await keyring.delete(`${account}/webhookSecret`);
  const profile: Profile = { baseUrl };
  if (!keyInKeyring) profile.apiKey = apiKey;
  if (secretInFile !== undefined) profile.webhookSecret = secretInFile;
  if (keyInKeyring || secretInKeyring) {
    profile.keyring = {
      account,
      ...(keyInKeyring ? { apiKey: true, maskedKey: maskKey(apiKey) } : {}),
      ...(secretInKeyring ? { webhookSecret: true } : {}),
    };
  }
  return { profile, inKeyring: keyInKeyring };
}

async function readCredentials(ctx: Context, opts: Options): Promise<{ apiKey: string; webhookSecret?: string }> {
  const stdin = ctx.io.streams.stdin;
  if (opts.apiKeyStdin) {
    const [apiKey, webhookSecret] = await readStdinLines(stdin, opts.webhookSecretStdin ? 2 : 1, opts.webhookSecretStdin ? '--api-key-stdin --webhook-secret-stdin' : '--api-key-stdin', ctx.signal);
    return { apiKey, webhookSecret };
  }
  if (!ctx.io.canPrompt()) {
    throw new UsageError('--api-key-stdin: required when not on a terminal (keys are never taken as flag values)', 'printf "%s\\n" "$KEY" | svc login --api-key-stdin');
  }
  // On a terminal, "stdin" is the person typing: both values are asked for without echo.
  const apiKey = (await ctx.prompter().password(`API key (${MASKED_KEY}):`)).trim();
  const webhookSecret = opts.webhookSecretStdin ? (await ctx.prompter().password('Webhook secret (64 hex characters):')).trim() : undefined;
  return { apiKey, webhookSecret };
}
