/** The HTTP core's dry-run mode: a request other than GET is handed over (key redacted) instead of sent; GETs still go out. */
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { DryRunRequest } from '../../src/api/dry-run.js';
import { USER_AGENT } from '../../src/version.js';

const ORIGIN = 'https://api.example.test';
const KEY = 'svc_live_abcdefghijklmnop1234';
let agent: MockAgent;
let printed: DryRunRequest[];

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  printed = [];
});
afterEach(async () => {
  // A dry run that sent its POST would hit no interceptor and fail; every GET scripted was used.
  agent.assertNoPendingInterceptors();
  await agent.close();
});

const client = () => new ApiClient({ baseUrl: `${ORIGIN}/v1`, apiKey: KEY, dispatcher: agent, dryRun: async (request) => void printed.push(request) });

describe('dry-run mode of the client', () => {
  it('hands over every POST, PATCH and DELETE with its headers, key redacted, and returns the marker', async () => {
    const api = client();
    const post = await api.post('/personal-links', { fullName: 'Ada' }, { idempotencyKey: 'k-1', headers: { 'accept-language': 'de-DE' } });
    expect(post).toEqual({ status: 0, headers: {}, body: undefined, replayed: false, idempotencyKey: 'k-1', dryRun: true });
    await api.request('DELETE', '/things/1');
    await api.request('PATCH', '/things/1', { body: '{"raw": true}' });
    expect(printed).toEqual([
      {
        method: 'POST',
        url: `${ORIGIN}/v1/personal-links`,
        headers: { Authorization: '[redacted]', 'User-Agent': USER_AGENT, Accept: 'application/json', 'Content-Type': 'application/json', 'Idempotency-Key': 'k-1', 'Accept-Language': 'de-DE' },
        body: { fullName: 'Ada' },
      },
      { method: 'DELETE', url: `${ORIGIN}/v1/things/1`, headers: { Authorization: '[redacted]', 'User-Agent': USER_AGENT, Accept: 'application/json' }, body: null },
      { method: 'PATCH', url: `${ORIGIN}/v1/things/1`, headers: { Authorization: '[redacted]', 'User-Agent': USER_AGENT, Accept: 'application/json', 'Content-Type': 'application/json' }, body: { raw: true } },
    ]);
    expect(JSON.stringify(printed)).not.toContain(KEY);
  });

  it('sends GETs: reads that build a request still happen', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/me', method: 'GET' }).reply(200, { key: { name: 'k' } }, { headers: { 'content-type': 'application/json' } });
    expect(await client().get('/me')).toEqual({ key: { name: 'k' } });
    expect(printed).toEqual([]);
  });
});
