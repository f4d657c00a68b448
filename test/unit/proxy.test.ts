/** Reading HTTPS_PROXY / HTTP_PROXY / NO_PROXY (lower-case first) and keeping proxy credentials out of every line. */
import { describe, expect, it } from 'vitest';
import { describeProxy, proxyAtFault, proxySettings, scrubProxyCredentials } from '../../src/api/proxy.js';
import { UsageError } from '../../src/core/errors.js';

describe('proxy settings', () => {
  it('none set: no proxy at all (a plain agent)', () => {
    expect(proxySettings({})).toBeUndefined();
    expect(proxySettings({ NO_PROXY: 'example.test', HTTPS_PROXY: '  ' })).toBeUndefined();
    expect(proxySettings({ HTTPS_PROXY: 'http://proxy.corp:3128', NO_PROXY: ' * ' })).toBeUndefined();
    expect(proxySettings({ HTTPS_PROXY: 'http://proxy.corp:3128', no_proxy: '*', NO_PROXY: 'a.test' })).toBeUndefined();
  });

  it('HTTPS_PROXY and HTTP_PROXY, lower-case forms first; HTTP_PROXY also carries https when HTTPS_PROXY is unset; loopback always added to NO_PROXY', () => {
    expect(proxySettings({ HTTPS_PROXY: 'http://proxy.corp:3128', NO_PROXY: '.internal,10.0.0.1' })).toEqual({
      httpProxy: undefined,
      httpsProxy: 'http://proxy.corp:3128/',
      noProxy: '.internal,10.0.0.1,localhost,127.0.0.1,[::1],::1',
    });
    expect(proxySettings({ https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2', no_proxy: 'a.test', NO_PROXY: 'b.test' })).toEqual({
      httpProxy: undefined,
      httpsProxy: 'http://lower:1/',
      noProxy: 'a.test,localhost,127.0.0.1,[::1],::1',
    });
    expect(proxySettings({ HTTP_PROXY: 'http://proxy.corp:8080' })).toEqual({
      httpProxy: 'http://proxy.corp:8080/',
      httpsProxy: 'http://proxy.corp:8080/',
      noProxy: 'localhost,127.0.0.1,[::1],::1',
    });
  });

  it('a proxy URL that does not parse, or of another scheme, is a usage error that never repeats the value', () => {
    const bad = (env: NodeJS.ProcessEnv) => {
      try {
        proxySettings(env);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        return (error as Error).message;
      }
      return 'no error';
    };
    expect(bad({ HTTPS_PROXY: 'user:s3cret@proxy' })).toBe('HTTPS_PROXY: a proxy URL must start with http:// or https://, got user:');
    expect(bad({ https_proxy: '::s3cret::' })).toBe('https_proxy: not a URL (expected http://[user:password@]host:port)');
    expect(bad({ HTTP_PROXY: 'socks5://u:s3cret@proxy:1080' })).toBe('HTTP_PROXY: a proxy URL must start with http:// or https://, got socks5:');
  });

  it('describes a proxy without its credentials', () => {
    expect(describeProxy('http://user:p%40ss@proxy.corp:3128/')).toBe('http://[redacted]@proxy.corp:3128');
    expect(describeProxy('https://proxy.corp/')).toBe('https://proxy.corp');
  });

  it('scrubs the credentials from any text, raw and percent-decoded', () => {
    const settings = proxySettings({ HTTPS_PROXY: 'http://ops:p%40ss-w0rd@proxy.corp:3128' });
    expect(scrubProxyCredentials('via http://ops:p%40ss-w0rd@proxy.corp:3128 refused (p@ss-w0rd)', settings)).toBe('via http://[redacted]@proxy.corp:3128 refused ([redacted])');
    expect(scrubProxyCredentials('nothing here', undefined)).toBe('nothing here');
  });
});

describe('a connection that failed at the proxy', () => {
  const settings = proxySettings({ HTTPS_PROXY: 'http://bob:hunter22@127.0.0.1:3128', HTTP_PROXY: 'http://proxy.corp.example:8080' });
  // What undici's proxy agent throws when nothing listens at the proxy: the socket's address and port.
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3128'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 3128 });

  it('is named, without its credentials, when the socket that failed was the proxy', () => {
    expect(proxyAtFault(refused, 'https://api.example.test/v1/me', settings)).toBe('http://[redacted]@127.0.0.1:3128');
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND proxy.corp.example'), { code: 'ENOTFOUND', hostname: 'proxy.corp.example' });
    expect(proxyAtFault(notFound, 'http://api.example.test/v1/me', settings)).toBe('http://proxy.corp.example:8080');
  });

  it('is not blamed for a target the proxy was not in front of, or when it cannot be told', () => {
    expect(proxyAtFault(refused, 'https://api.example.test/v1/me', undefined)).toBeUndefined();
    expect(proxyAtFault(refused, 'http://127.0.0.1:3128/v1/me', settings)).toBeUndefined();
    const target = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED', address: '10.0.0.1', port: 443 });
    expect(proxyAtFault(target, 'https://api.example.test/v1/me', settings)).toBeUndefined();
    expect(proxyAtFault(refused, 'https://api.example.test:3128/v1/me', settings)).toBeUndefined();
  });
});
