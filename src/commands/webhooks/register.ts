/**
 * `webhooks listen` against a local sandbox: its own URL becomes the webhook URL of the profile's key
 * (admin PATCH /keys/{name}), and the URL the key had is put back when the listener stops. Only a
 * loopback base URL whose admin API answers as `svc sandbox` does is touched; anything else is left
 * alone without a word (a real service's keys are set by the operator's team).
 */
import { getMe } from '../../api/resources.js';
import type { Context } from '../../app/context.js';
import { SvcError } from '../../core/errors.js';
import { isLoopbackHost } from '../../core/net.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { SandboxAdmin } from '../../features/sandbox-admin.js';

/** Puts the key's previous webhook URL back. */
export type Restore = () => Promise<void>;

export async function registerWithSandbox(ctx: Context, url: string): Promise<Restore | undefined> {
  const { baseUrl } = await ctx.profile();
  if (!isLoopbackHost(new URL(baseUrl).hostname)) return undefined;
  // Its own signal: the URL is put back after Ctrl-C has aborted the run's.
  const admin = await SandboxAdmin.open(baseUrl, new AbortController().signal).catch(() => undefined);
  if (admin === undefined) return undefined;
  try {
    const { key } = (await getMe(await ctx.client(), { signal: ctx.signal })).body;
    const previous = key.webhookUrl ?? null;
    const path = `/keys/${encodeURIComponent(key.name)}`;
    await admin.call('PATCH', path, { webhookUrl: url });
    const name = terminalSafeLine(key.name);
    ctx.io.info(`Registered ${url} as the webhook URL of key ${name} (was ${previous === null ? 'none' : terminalSafeLine(previous)}); it is put back when this stops (--no-register leaves the key alone).`);
    return async () => {
      try {
        await admin.call('PATCH', path, { webhookUrl: previous });
        ctx.io.info(`Put back the webhook URL of key ${name}: ${previous === null ? 'none' : terminalSafeLine(previous)}.`);
      } catch (error) {
        ctx.io.info(`note: could not put back the webhook URL of key ${name} (${terminalSafeLine(error instanceof Error ? error.message : String(error))})`);
      } finally {
        await admin.close();
      }
    };
  } catch (error) {
    await admin.close();
    if (!(error instanceof SvcError)) throw error;
    ctx.io.info(`note: the webhook URL of the key was not registered with the sandbox (${terminalSafeLine(error.message)})`);
    return undefined;
  }
}
