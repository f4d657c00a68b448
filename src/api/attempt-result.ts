/**
 * What one attempt of a call came to, judged: a success (a 2xx with JSON or nothing), or a failure
 * with the outcome the retry policy reads (retry.ts) and the error a person reads if it is final.
 */
import { ApiError, UnavailableError, type Problem } from '../core/errors.js';
import { isLoopbackHost } from '../core/net.js';
import { proxyAtFault, scrubProxyCredentials, type ProxySettings } from './proxy.js';
import { isCertificateError, type Outcome } from './retry.js';
import { describeNetworkError } from './transport.js';

/** Response headers as undici gives them (lower-case names; a repeated header as an array). */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

export type AttemptFailure = { kind: 'failure'; outcome: Outcome; error: ApiError | UnavailableError };

export type AttemptResult = { kind: 'success'; status: number; headers: ResponseHeaders; body: unknown } | AttemptFailure;

/** An answer read whole: a 2xx is a success unless its body is something other than JSON; any other status, a failure with its problem. */
export function judgeAnswer(status: number, headers: ResponseHeaders, text: string): AttemptResult {
  const contentType = headerValue(headers['content-type']) ?? '';
  const parsed = parseJsonBody(text, contentType);
  if (status >= 200 && status < 300) {
    if (!parsed.ok && text.trim() !== '') {
      return {
        kind: 'failure',
        outcome: { kind: 'response', status },
        error: new UnavailableError(
          `the service answered ${status} with a body that is not JSON (${contentType || 'no content type'}): ${snippet(text)}`,
          'invalid_response',
        ),
      };
    }
    return { kind: 'success', status, headers, body: parsed.ok ? parsed.value : null };
  }
  const problem = toProblem(status, parsed.ok ? parsed.value : undefined, text, contentType);
  return {
    kind: 'failure',
    outcome: { kind: 'response', status, code: problem.code, retryAfter: headerValue(headers['retry-after']) },
    error: new ApiError(problem),
  };
}

/** No answer within the per-attempt time-out. */
export function timeoutFailure(method: string, url: string, timeoutMs: number): AttemptFailure {
  return {
    kind: 'failure',
    outcome: { kind: 'timeout' },
    error: new UnavailableError(`no response within ${timeoutMs / 1000}s from ${method} ${url}`, 'timeout'),
  };
}

/** No answer because the network failed (`code`, as errorCode read it), with a hint where one helps. */
export function networkFailure(error: unknown, code: string, url: string, proxy: ProxySettings | undefined): AttemptFailure {
  // Nothing listens on this machine's port: no wait will change that, and it is most often a
  // sandbox that is not running. Said at once, without retries.
  const local = code === 'ECONNREFUSED' && isLoopbackHost(new URL(url).hostname);
  // Behind a proxy, the proxy itself may be what cannot be reached: said so, without its credentials.
  const viaProxy = proxyAtFault(error, url, proxy);
  return {
    kind: 'failure',
    outcome: { kind: 'network', code: local ? 'ECONNREFUSED_LOOPBACK' : code },
    error: new UnavailableError(
      `could not reach ${new URL(url).origin}${viaProxy ? ` through the proxy ${viaProxy}` : ''}: ${scrubProxyCredentials(describeNetworkError(error), proxy)}`,
      'connection_error',
      error,
      networkHint(code, local, viaProxy),
    ),
  };
}

function networkHint(code: string, local: boolean, viaProxy: string | undefined): string | undefined {
  if (local) return 'is the sandbox running? start it with: svc sandbox';
  if (viaProxy) return 'check HTTPS_PROXY and HTTP_PROXY (or name this host in NO_PROXY to go direct)';
  // A company proxy or CA that re-signs TLS: Node trusts its certificate once told where it is.
  if (isCertificateError(code)) return "if your company's proxy or CA signs this certificate, point NODE_EXTRA_CA_CERTS at its PEM file";
  return undefined;
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function parseJsonBody(text: string, contentType: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: false };
  if (contentType && !/json/i.test(contentType)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Any error status becomes a Problem: the service's own document when it sent one, else a described stand-in. */
export function toProblem(status: number, parsed: unknown, text: string, contentType: string): Problem {
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const body = parsed as Record<string, unknown>;
    const problem: Problem = { ...body, status: typeof body.status === 'number' ? body.status : status };
    if (typeof body.code !== 'string') problem.code = `http_${status}`;
    if (typeof body.detail !== 'string') problem.detail = typeof body.title === 'string' ? body.title : `HTTP ${status}`;
    if (body.errors !== undefined && !Array.isArray(body.errors)) delete problem.errors;
    return problem;
  }
  const what = text.trim() === '' ? 'an empty body' : `a non-JSON body (${contentType || 'no content type'}): ${snippet(text)}`;
  return { status, code: `http_${status}`, detail: `HTTP ${status} with ${what}` };
}

/** Text on one line, cut at `max` characters. */
export function snippet(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
