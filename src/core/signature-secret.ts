/**
 * Where the webhook secret comes from, in the contract's order: `--secret-stdin`, then
 * SVC_WEBHOOK_SECRET, then the profile. The secret is never printed; only its source is named.
 */
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import type { KnownSecret } from './signature-diagnose.js';
import { readStdinLines } from './stdin.js';

export interface ResolvedSecret {
  secret: string;
  /** where it came from, for messages: `--secret-stdin`, `SVC_WEBHOOK_SECRET` or `profile NAME` */
  source: string;
}

/** `stdinFlag`: whether the command has `--secret-stdin` (only then is it offered in the error). */
export async function resolveWebhookSecret(ctx: Context, options: { secretStdin?: boolean; stdinFlag: boolean }): Promise<ResolvedSecret> {
  if (options.secretStdin) {
    const [secret] = await readStdinLines(ctx.io.streams.stdin, 1, '--secret-stdin');
    return { secret, source: '--secret-stdin' };
  }
  const fromEnv = ctx.env.SVC_WEBHOOK_SECRET;
  if (fromEnv) return { secret: fromEnv, source: 'SVC_WEBHOOK_SECRET' };
  const profile = await ctx.profile();
  if (profile.webhookSecret) return { secret: profile.webhookSecret, source: `profile ${profile.name}` };
  const login = `svc login${profile.name === 'default' ? '' : ` --profile ${profile.name}`} --webhook-secret-stdin`;
  const ways = [...(options.stdinFlag ? ['pipe it with --secret-stdin'] : []), 'set SVC_WEBHOOK_SECRET', `save it in the profile with '${login}'`];
  throw new UsageError(`no webhook secret for profile ${profile.name}: ${ways.join(', or ')}`);
}

/** Every other secret the user has at hand, to recognise a signature made with the wrong one. */
export async function knownSecrets(ctx: Context): Promise<KnownSecret[]> {
  const known: KnownSecret[] = [];
  if (ctx.env.SVC_WEBHOOK_SECRET) known.push({ source: 'SVC_WEBHOOK_SECRET', secret: ctx.env.SVC_WEBHOOK_SECRET });
  const config = await ctx.config();
  for (const [name, profile] of Object.entries(config.profiles())) {
    if (profile.webhookSecret) known.push({ source: `profile ${name}`, secret: profile.webhookSecret });
  }
  return known;
}
