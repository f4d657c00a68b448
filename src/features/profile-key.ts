/**
 * The API key a profile holds now. A sandbox restarted under a long-running command (`events tail
 * --follow`) saves its profile again with a new key; the command reads it afresh when its key is
 * refused, as `webhooks listen` does for the webhook secret, instead of ending.
 */
import type { ApiClient } from '../api/client.js';
import type { Context, ResolvedProfile } from '../app/context.js';
import { ConfigStore, validateBaseUrl } from '../core/config.js';
import { terminalSafeLine } from '../core/sanitize.js';

export interface KeyRenewal {
  client: ApiClient;
  /** says, for people, that the key changed (never the key) */
  message: string;
}

/**
 * For a run whose key came from `profile` (not SVC_API_KEY): a function that, when called after a
 * refusal, returns a client with the key the profile holds now for the same base URL, or undefined
 * when it holds the same key (or none, or for another URL).
 */
export function profileKeyRenewal(ctx: Context, profile: ResolvedProfile, usedKey: string): (() => Promise<KeyRenewal | undefined>) | undefined {
  if (ctx.env.SVC_API_KEY || !profile.stored) return undefined;
  let current = usedKey;
  return async () => {
    const fresh = await currentProfileKey(ctx, profile.name, profile.baseUrl);
    if (fresh === undefined || fresh === current) return undefined;
    current = fresh;
    const client = await ctx.clientFor(profile.baseUrl, fresh, profile.webhookSecret ? [profile.webhookSecret] : []);
    return { client, message: `the API key of profile ${terminalSafeLine(profile.name)} changed on disk (a restarted sandbox?); going on with the new one` };
  };
}

/** The key of profile `name` as the config file (or the OS keyring) holds it now, if it is for `baseUrl`. */
async function currentProfileKey(ctx: Context, name: string, baseUrl: string): Promise<string | undefined> {
  try {
    const stored = (await ConfigStore.open(ctx.env)).getProfile(name);
    if (!stored || validateBaseUrl(stored.baseUrl, `profile ${name} base URL`) !== baseUrl) return undefined;
    const key = stored.apiKey ?? (stored.keyring?.apiKey ? await ctx.secretStore().get(`${stored.keyring.account}/apiKey`) : undefined);
    return key?.trim() || undefined;
  } catch {
    return undefined;
  }
}
