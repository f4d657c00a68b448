/**
 * The sandbox's admin API as `svc trigger` uses it: found from the base URL (…/v1 → …/_sandbox),
 * only on a loopback host, and only after GET {adminUrl}/clock has answered as a sandbox does.
 * Nothing else is sent before that probe, and the probe carries no API key.
 */
import { toProblem } from '../api/attempt-result.js';
import { SideRequestError, SideRequests, type SideRequest } from '../api/side.js';
import { isLoopbackHost } from '../core/net.js';
import { ApiError, InterruptedError, UnavailableError, UsageError } from '../core/errors.js';
import { terminalSafeLine } from '../core/sanitize.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ADMIN_TIMEOUT_MS = 15_000;

/** …/v1 → …/_sandbox, the way `svc sandbox` lays out its two APIs. */
export function adminUrlFor(baseUrl: string): string {
  return baseUrl.replace(/\/v1\/?$/, '/_sandbox');
}

export class SandboxAdmin {
  private readonly http = new SideRequests({ responseTimeoutMs: ADMIN_TIMEOUT_MS, overLimit: 'refuse' });

  private constructor(
    readonly adminUrl: string,
    private readonly signal: AbortSignal,
  ) {}

  /**
   * The admin API behind `baseUrl`, or a usage error (exit 2) when the base URL is not a loopback
   * sandbox: a non-loopback host is refused before any connection; a loopback one gets one probe.
   */
  static async open(baseUrl: string, signal: AbortSignal): Promise<SandboxAdmin> {
    const host = new URL(baseUrl).hostname;
    if (!isLoopbackHost(host)) {
      throw new UsageError(`trigger works only against a local svc sandbox; ${baseUrl} is not on a loopback address (nothing was sent)`, 'start one with `svc sandbox` and use --profile sandbox');
    }
    const admin = new SandboxAdmin(adminUrlFor(baseUrl), signal);
    let answer: { status: number; body: unknown };
    try {
      answer = await admin.send('GET', '/clock');
    } catch (error) {
      await admin.close();
      if (error instanceof InterruptedError) throw error;
      throw notSandbox(baseUrl, admin.adminUrl, error instanceof Error ? error.message : String(error));
    }
    const now = (answer.body as { now?: unknown } | null)?.now;
    if (answer.status !== 200 || typeof now !== 'string' || !TIMESTAMP.test(now)) {
      await admin.close();
      throw notSandbox(baseUrl, admin.adminUrl, `it answered ${answer.status}${answer.status === 200 ? ' without the sandbox clock' : ''}`);
    }
    return admin;
  }

  /** A call that must succeed: a refusal becomes an ApiError (a 409 invalid_transition exits 1). */
  async call<T>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<T> {
    const answer = await this.send(method, path, body);
    if (answer.status >= 200 && answer.status < 300) return answer.body as T;
    throw new ApiError(toProblem(answer.status, answer.body, answer.text, 'application/json'), { note: `sandbox admin ${method} ${path}` });
  }

  async close(): Promise<void> {
    await this.http.close();
  }

  private async send(method: SideRequest['method'], path: string, body?: unknown): Promise<{ status: number; body: unknown; text: string }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    let answer: { status: number; text: string };
    try {
      answer = await this.http.send(`${this.adminUrl}${path}`, { method, headers, body: payload, signal: this.signal });
    } catch (error) {
      if (!(error instanceof SideRequestError)) throw error;
      throw new UnavailableError(`could not reach the sandbox admin API at ${this.adminUrl}: ${error.message}`, 'connection_error', error);
    }
    let parsed: unknown;
    try {
      parsed = answer.text === '' ? undefined : JSON.parse(answer.text);
    } catch {
      parsed = undefined;
    }
    return { status: answer.status, body: parsed, text: answer.text };
  }
}

function notSandbox(baseUrl: string, adminUrl: string, why: string): UsageError {
  return new UsageError(
    `${baseUrl} is not a svc sandbox: GET ${adminUrl}/clock did not answer as the sandbox does (${terminalSafeLine(why)}); nothing else was sent`,
    'trigger works only against `svc sandbox`; check --base-url or --profile',
  );
}
