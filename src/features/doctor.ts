/**
 * The checks of `svc doctor` (and the assistant's `doctor` tool): config (file and directory modes),
 * key (present, format, where it comes from), api (reachable, GET /me, scopes and brands), clock
 * (skew of the server's Date against the 300 s signature tolerance), webhook (URL set; with `webhook`
 * a real test delivery). Every check runs even when an earlier one failed (a later one says "not
 * checked" when it depends on it); a refused or revoked key is a failed check, never a crash.
 */
import { lstat } from 'node:fs/promises';
import { getMe, testWebhook } from '../api/resources.js';
import type { ApiClient, ApiResponse } from '../api/client.js';
import { headerValue } from '../api/attempt-result.js';
import type { Me } from '../api/types.js';
import type { Context, ResolvedProfile } from '../app/context.js';
import { ApiError, ExitCode, SvcError } from '../core/errors.js';
import { terminalSafeLine } from '../core/sanitize.js';
import { MASKED_KEY, isApiKeyFormat, maskKey } from '../api/keys.js';

export interface Check {
  check: 'config' | 'key' | 'api' | 'clock' | 'webhook';
  ok: boolean;
  detail: string;
  /** how to fix it (tables only) */
  hint?: string;
}

/** The signature tolerance of the API: a receiver rejects timestamps further than this from its clock. */
const TOLERANCE_SECONDS = 300;

/** Every check, in order. */
export async function runChecks(ctx: Context, webhook: boolean): Promise<Check[]> {
  const checks: Check[] = [];
  let profile: ResolvedProfile | undefined;
  try {
    profile = await ctx.profile();
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    checks.push({ check: 'config', ok: false, detail: error.message, hint: error.hint ?? 'fix the profile, --base-url or SVC_BASE_URL' });
  }
  if (profile) checks.push(await configCheck(ctx));

  const me = profile?.apiKey ? await callMe(ctx) : undefined;
  checks.push(keyCheck(ctx, profile, me));
  checks.push(apiCheck(profile, me));
  checks.push(clockCheck(me));
  checks.push(await webhookCheck(ctx, me, webhook));
  return checks;
}

async function configCheck(ctx: Context): Promise<Check> {
  const config = await ctx.config();
  const problems: string[] = [];
  const fixes: string[] = [];
  const directory = await statOrNone(config.directory);
  const file = await statOrNone(config.path);
  if (directory && (directory.mode & 0o077) !== 0) {
    problems.push(`directory ${config.directory} is ${octal(directory.mode)}, not 0700`);
    fixes.push(`chmod 700 '${config.directory}'`);
  }
  if (file?.isSymbolicLink()) {
    problems.push(`${config.path} is a symbolic link`);
    fixes.push('replace it with the file itself');
  } else if (file && (file.mode & 0o077) !== 0) {
    problems.push(`file ${config.path} is ${octal(file.mode)}, not 0600`);
    fixes.push(`chmod 600 '${config.path}'`);
  }
  if (problems.length > 0) return { check: 'config', ok: false, detail: problems.join('; '), hint: fixes.join(' && ') };
  if (!file) return { check: 'config', ok: true, detail: `no config file yet (${config.path}); nothing saved` };
  return { check: 'config', ok: true, detail: `${config.path} (0600 in a 0700 directory)` };
}

type MeResult = { ok: true; response: ApiResponse<Me>; elapsedMs: number } | { ok: false; error: SvcError };

/** GET /me once, without retries: doctor reports what happens now, quickly. */
async function callMe(ctx: Context): Promise<MeResult> {
  let client: ApiClient;
  try {
    client = await ctx.client();
  } catch (error) {
    if (error instanceof SvcError) return { ok: false, error };
    throw error;
  }
  const started = performance.now();
  try {
    const response = await getMe(client, { signal: ctx.signal, retry: false });
    return { ok: true, response, elapsedMs: Math.round(performance.now() - started) };
  } catch (error) {
    if (error instanceof SvcError && error.exitCode !== ExitCode.interrupted) return { ok: false, error };
    throw error;
  }
}

function keyCheck(ctx: Context, profile: ResolvedProfile | undefined, me: MeResult | undefined): Check {
  if (!profile) return { check: 'key', ok: false, detail: 'not checked: no usable profile' };
  if (!profile.apiKey) {
    return {
      check: 'key',
      ok: false,
      detail: `no API key for profile ${profile.name}`,
      hint: `run 'svc login${profile.name === 'default' ? '' : ` --profile ${profile.name}`}' or set SVC_API_KEY`,
    };
  }
  const where = ctx.env.SVC_API_KEY ? 'SVC_API_KEY (environment)' : `profile ${profile.name} (${storageOf(profile)})`;
  const masked = maskKey(profile.apiKey);
  if (!isApiKeyFormat(profile.apiKey)) {
    return { check: 'key', ok: false, detail: `${masked} from ${where} is not of the form ${MASKED_KEY}`, hint: 'copy the whole key as the administrator showed it' };
  }
  if (me && !me.ok && me.error.exitCode === ExitCode.auth) {
    return { check: 'key', ok: false, detail: `${masked} from ${where} was refused: ${terminalSafeLine(me.error.message)}`, hint: 'the key is revoked, unknown, or API access is off: ask the administrator for a new key, then svc login' };
  }
  return { check: 'key', ok: true, detail: `${masked} from ${where}` };
}

function apiCheck(profile: ResolvedProfile | undefined, me: MeResult | undefined): Check {
  if (!profile || !me) return { check: 'api', ok: false, detail: 'not checked: no API key' };
  if (!me.ok) {
    const reachable = me.error instanceof ApiError;
    return {
      check: 'api',
      ok: false,
      detail: `GET ${profile.baseUrl}/me: ${reachable ? `${me.error.code}: ` : ''}${terminalSafeLine(me.error.message)}`,
      hint: reachable ? (me.error.hint ?? 'see the key check') : `is the service (or svc sandbox) running at ${profile.baseUrl}? check --base-url, SVC_BASE_URL and the network`,
    };
  }
  const body = me.response.body;
  const scopes = (body?.key?.scopes ?? []).join(', ') || 'none';
  const brands = (body?.brands ?? []).map((brand) => brand?.name ?? brand?.id).join(', ') || 'none';
  return {
    check: 'api',
    ok: true,
    detail: terminalSafeLine(`${profile.baseUrl} answered GET /me in ${me.elapsedMs} ms: key ${body?.key?.name ?? '?'}, scopes ${scopes}, brands ${brands}`),
  };
}

function clockCheck(me: MeResult | undefined): Check {
  if (!me?.ok) return { check: 'clock', ok: false, detail: 'not checked: GET /me did not answer' };
  const date = headerValue(me.response.headers.date);
  const serverMs = date === undefined ? NaN : Date.parse(date);
  if (Number.isNaN(serverMs)) return { check: 'clock', ok: false, detail: 'not checked: the server sent no readable Date header' };
  // The Date header has whole seconds and was stamped during the call: allow both in the comparison.
  const skew = Math.round((Date.now() - me.elapsedMs / 2 - serverMs) / 1000);
  const words = skew === 0 ? 'in step with the server' : `${Math.abs(skew)}s ${skew > 0 ? 'ahead of' : 'behind'} the server`;
  if (Math.abs(skew) >= TOLERANCE_SECONDS) {
    return { check: 'clock', ok: false, detail: `local clock ${words}; signatures allow ${TOLERANCE_SECONDS}s`, hint: 'synchronise the clock (NTP: timedatectl set-ntp true)' };
  }
  return { check: 'clock', ok: true, detail: `local clock ${words} (signatures allow ${TOLERANCE_SECONDS}s)` };
}

async function webhookCheck(ctx: Context, me: MeResult | undefined, test: boolean): Promise<Check> {
  if (!me?.ok) return { check: 'webhook', ok: false, detail: 'not checked: GET /me did not answer' };
  const url = me.response.body?.key?.webhookUrl;
  if (!url) {
    // A key without a webhook URL is a normal set-up (the feed works without one); only --webhook asks for one.
    return { check: 'webhook', ok: !test, detail: test ? 'no webhook URL is set on this key' : 'no webhook URL is set on this key (fine: the event feed works without one)', hint: "the operator's team sets it (sandbox: PATCH /_sandbox/keys/{name} {\"webhookUrl\": …}); the feed works without it (svc events tail)" };
  }
  const safeUrl = terminalSafeLine(url);
  if (!test) return { check: 'webhook', ok: true, detail: `URL ${safeUrl} (svc doctor --webhook sends a test delivery)` };
  const client = await ctx.client();
  try {
    const { body } = await testWebhook(client, { signal: ctx.signal, retry: false });
    const status = body?.responseStatus;
    if (typeof status === 'number' && status >= 200 && status < 300) return { check: 'webhook', ok: true, detail: `URL ${safeUrl} answered the test delivery with ${status}` };
    return {
      check: 'webhook',
      ok: false,
      detail: `URL ${safeUrl}: test delivery ${typeof status === 'number' ? `answered ${status}` : 'not answered'}${body?.error ? `: ${terminalSafeLine(body.error)}` : ''}`,
      hint: 'check the receiver is up and answers 2xx (svc webhooks listen shows what arrives)',
    };
  } catch (error) {
    if (!(error instanceof SvcError) || error.exitCode === ExitCode.interrupted) throw error;
    return { check: 'webhook', ok: false, detail: `POST /webhooks:test: ${error.code}: ${terminalSafeLine(error.message)}` };
  }
}

/** Where a profile's key is kept. */
function storageOf(profile: ResolvedProfile): string {
  return profile.stored?.apiKey === undefined && profile.stored?.keyring?.apiKey ? 'OS keyring' : 'config file';
}

async function statOrNone(path: string) {
  try {
    return await lstat(path);
  } catch {
    return undefined;
  }
}

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}
