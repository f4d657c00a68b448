/**
 * Proxies for every request svc sends (the API, `--forward-to`, `webhooks replay`): `HTTPS_PROXY`,
 * `HTTP_PROXY` and `NO_PROXY`, lower-case forms first (as curl and undici read them). The proxying
 * itself is undici's EnvHttpProxyAgent; this module only reads the variables, adds the loopback
 * names to `NO_PROXY` (a local sandbox or receiver is never sent through a proxy) and describes a
 * proxy URL without its credentials for --debug and errors.
 */
import { UsageError } from '../core/errors.js';
import { isLoopbackHost } from '../core/net.js';

export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy: string;
}

/** Never proxied, whatever NO_PROXY says: loopback names and addresses (undici also matches subdomains of a name). */
const LOOPBACK_NO_PROXY = ['localhost', '127.0.0.1', '[::1]', '::1'];

/** The proxy settings of this environment; undefined when no proxy is set (a plain agent is used). */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings | undefined {
  const httpProxy = proxyUrl(env, 'http_proxy');
  const httpsProxy = proxyUrl(env, 'https_proxy');
  if (!httpProxy && !httpsProxy) return undefined;
  const given = (env.no_proxy ?? env.NO_PROXY ?? '').trim();
  // `NO_PROXY=*`: nothing is proxied (undici knows `*` only as the whole value, so it is decided here).
  if (given === '*') return undefined;
  const noProxy = [given, ...LOOPBACK_NO_PROXY].filter(Boolean).join(',');
  // Like undici: HTTPS_PROXY unset means HTTP_PROXY carries https requests too.
  return { httpProxy, httpsProxy: httpsProxy ?? httpProxy, noProxy };
}

function proxyUrl(env: NodeJS.ProcessEnv, lower: string): string | undefined {
  const upper = lower.toUpperCase();
  const name = env[lower] !== undefined ? lower : upper;
  const value = env[name]?.trim();
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The value is never repeated: it may carry a password.
    throw new UsageError(`${name}: not a URL (expected http://[user:password@]host:port)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${name}: a proxy URL must start with http:// or https://, got ${url.protocol}`);
  return url.toString();
}

/** A proxy URL for people: scheme, host and port; user name and password replaced by `[redacted]`. */
export function describeProxy(value: string): string {
  const url = new URL(value);
  const credentials = url.username || url.password ? '[redacted]@' : '';
  return `${url.protocol}//${credentials}${url.host}`;
}

/**
 * Text with every credential of the proxy URLs replaced by `[redacted]`: the whole `user:password@`
 * (raw and percent-decoded) and the password alone (at 3 characters or more). For error messages a
 * library builds from a proxy's answer.
 */
export function scrubProxyCredentials(text: string, settings: ProxySettings | undefined): string {
  let out = text;
  for (const value of [settings?.httpProxy, settings?.httpsProxy]) {
    if (!value) continue;
    const url = new URL(value);
    if (!url.username && !url.password) continue;
    const userinfo = `${url.username}${url.password ? `:${url.password}` : ''}@`;
    for (const secret of new Set([userinfo, safeDecode(userinfo), url.password, safeDecode(url.password)])) {
      if (secret.length >= 3 && secret !== '@') out = out.split(secret).join(secret.endsWith('@') ? '[redacted]@' : '[redacted]');
    }
  }
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The proxy (described without its credentials) when a failed connection was to it rather than to
 * `target`: the failing socket's host name, or its port where the target's differs, is the proxy's.
 * Undefined otherwise (no proxy, a loopback target, which is never proxied, or no way to tell), so
 * a message never blames a proxy that was not in the way.
 */
export function proxyAtFault(error: unknown, target: string, settings: ProxySettings | undefined): string | undefined {
  if (!settings) return undefined;
  const to = new URL(target);
  const proxy = to.protocol === 'https:' ? settings.httpsProxy : settings.httpProxy;
  if (!proxy || isLoopbackHost(to.hostname)) return undefined;
  const via = new URL(proxy);
  const portOf = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');
  const err = error as { hostname?: unknown; port?: unknown; cause?: { hostname?: unknown; port?: unknown } } | undefined;
  const hostname = err?.hostname ?? err?.cause?.hostname;
  const port = err?.port ?? err?.cause?.port;
  const proxyHost = via.hostname.replace(/^\[|\]$/g, '');
  if (typeof hostname === 'string' && hostname === proxyHost && hostname !== to.hostname) return describeProxy(proxy);
  if (port !== undefined && String(port) === portOf(via) && portOf(via) !== portOf(to)) return describeProxy(proxy);
  return undefined;
}
