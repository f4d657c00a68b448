/**
 * Where the webhook secret comes from, in this order: `--secret-stdin`, then
 * SVC_WEBHOOK_SECRET, then the profile. The secret is never printed; only its source is named.
 */
import type { Context } from '../app/context.js';
import { UsageError } from '../core/errors.js';
import type { KnownSecret } from '../core/signature-diagnose.js';
import { readSecretInput } from '../core/stdin.js';

export interface ResolvedSecret {
  secret: string;
  /** where it came from, for messages: `--secret-stdin`, `SVC_WEBHOOK_SECRET` or `profile NAME` */
  source: string;
  /** the profile's name, when it came from a profile */
  profile?: string;
}

/** `stdinFlag`: whether the command has `--secret-stdin` (only then is it offered in the error). */
export async function resolveWebhookSecret(ctx: Context, options: { secretStdin?: boolean; stdinFlag: boolean }): Promise<ResolvedSecret> {
  if (options.secretStdin) return { secret: await readSecretStdin(ctx), source: '--secret-stdin' };
  const fromEnv = ctx.env.SVC_WEBHOOK_SECRET;
  if (fromEnv) return { secret: fromEnv, source: 'SVC_WEBHOOK_SECRET' };
  const profile = await ctx.profile();
  const saved = profile.webhookSecret ?? (await ctx.keyringSecret(profile.name, profile.stored, 'webhookSecret'));
  if (saved) return { secret: saved, source: `profile ${profile.name}`, profile: profile.name };
  const login = `svc login${profile.name === 'default' ? '' : ` --profile ${profile.name}`} --webhook-secret-stdin`;
  const ways = [...(options.stdinFlag ? ['pipe it with --secret-stdin'] : []), 'set SVC_WEBHOOK_SECRET', `save it in the profile with '${login}'`];
  throw new UsageError(`no webhook secret for profile ${profile.name}: ${ways.join(', or ')}`);
}

/**
 * The secret exactly as piped, less the one line end that `echo` or a file adds. Other whitespace is
 * kept: it is part of what the user gave, and verify-signature names it as the likely cause when a
 * signature then fails, instead of silently verifying with a secret the user's own code does not use.
 */
async function readSecretStdin(ctx: Context): Promise<string> {
  // On a terminal "stdin" is the person typing: ask without echo instead of reading typed text to Ctrl-D.
  if (ctx.io.streams.stdin.isTTY) {
    if (!ctx.io.canPrompt()) throw new UsageError('--secret-stdin: pipe the secret in (standard input is a terminal and prompting is off)');
    return ctx.prompter().password('Webhook secret:');
  }
  const secret = secretFromStdin((await readSecretInput(ctx.io.streams.stdin, ctx.signal, '--secret-stdin')).toString('utf8'));
  if (secret === undefined) throw new UsageError('--secret-stdin: expected the webhook secret on standard input');
  return secret;
}

/** The secret in piped text: drops one trailing line end (LF or CRLF); undefined when nothing but white space is left. */
export function secretFromStdin(text: string): string | undefined {
  const secret = text.replace(/\r?\n$/, '');
  return secret.trim() === '' ? undefined : secret;
}

/** Every other secret the user has at hand, to recognise a signature made with the wrong one. */
export async function knownSecrets(ctx: Context): Promise<KnownSecret[]> {
  const known: KnownSecret[] = [];
  if (ctx.env.SVC_WEBHOOK_SECRET) known.push({ source: 'SVC_WEBHOOK_SECRET', secret: ctx.env.SVC_WEBHOOK_SECRET });
  const config = await ctx.config();
  const profiles = Object.entries(config.profiles());
  // Secrets in the OS keyring are read too (in parallel, each bounded); one that cannot be read is left out.
  const secrets = await Promise.all(
    profiles.map(([name, profile]) => (profile.webhookSecret ? Promise.resolve(profile.webhookSecret) : ctx.keyringSecret(name, profile, 'webhookSecret').catch(() => undefined))),
  );
  profiles.forEach(([name], index) => {
    const secret = secrets[index];
    if (secret) known.push({ source: `profile ${name}`, secret });
  });
  return known;
}

/**
 * The webhook secret of profile `name` as the config file holds it now (a restarted sandbox saves a
 * new one while `webhooks listen` runs): read afresh, not from this run's copy. Undefined when the
 * profile has none or it cannot be read.
 */
export async function currentProfileSecret(ctx: Context, name: string): Promise<string | undefined> {
  try {
    const { ConfigStore } = await import('../core/config.js');
    const stored = (await ConfigStore.open(ctx.env)).getProfile(name);
    if (stored?.webhookSecret) return stored.webhookSecret;
    if (!stored?.keyring?.webhookSecret) return undefined;
    return await ctx.secretStore().get(`${stored.keyring.account}/webhookSecret`);
  } catch {
    return undefined;
  }
}
