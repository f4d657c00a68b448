/**
 * Behind a proxy that cannot be reached, the error names the proxy (never its credentials) and hints
 * at the proxy variables, after the retries too: "could not reach the API" would send a person
 * looking in the wrong place. Only loopback is ever connected to: the proxy's closed port.
 */
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { proxySettings } from '../../src/api/proxy.js';
import { ExitCode, UnavailableError } from '../../src/core/errors.js';
import { CLOSED_PORT } from '../helpers/ports.js';


describe('a proxy that cannot be reached', () => {
  it('is named without its credentials, with a hint to check the proxy variables, after the last retry', async () => {
    const port = CLOSED_PORT;
    const sleeps: number[] = [];
    const client = new ApiClient({
      baseUrl: 'https://api.example.test/v1',
      apiKey: 'svc_live_abcdefghijklmnop1234',
      proxy: proxySettings({ HTTPS_PROXY: `http://bob:hunter22@127.0.0.1:${port}` }),
      maxRetries: 1,
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0.5,
    });
    try {
      const error = (await client.get('/me').catch((e) => e)) as UnavailableError;
      expect(error).toBeInstanceOf(UnavailableError);
      expect(error.exitCode).toBe(ExitCode.unavailable);
      expect(error.message).toBe(`could not reach https://api.example.test through the proxy http://[redacted]@127.0.0.1:${port}: connection refused (after 2 attempts)`);
      expect(error.hint).toBe('check HTTPS_PROXY and HTTP_PROXY (or name this host in NO_PROXY to go direct)');
      expect(sleeps).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});
