/** The HTTP core tells its caller when a call starts and ends (retries included): what the spinner follows. */
import { describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { ApiClient } from '../../src/api/client.js';

describe('wait events', () => {
  it('is called once per call, and its end once the call is answered, after every retry', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get('https://api.example.test');
    pool.intercept({ path: '/v1/me' }).reply(503, { status: 503, code: 'unavailable' }, { headers: { 'content-type': 'application/problem+json' } });
    pool.intercept({ path: '/v1/me' }).reply(200, { ok: true }, { headers: { 'content-type': 'application/json' } });
    const events: string[] = [];
    const client = new ApiClient({
      baseUrl: 'https://api.example.test/v1',
      apiKey: 'svc_live_test0000000000',
      dispatcher: agent,
      sleep: async () => void events.push('retry wait'),
      onEvent: (event) => void (event.type === 'wait' && events.push(event.phase)),
    });
    expect(await client.get('/me')).toEqual({ ok: true });
    expect(events).toEqual(['start', 'retry wait', 'end']);
    await agent.close();
  });

  it('ends also when the call fails', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent.get('https://api.example.test').intercept({ path: '/v1/me' }).reply(404, { status: 404, code: 'not_found' }, { headers: { 'content-type': 'application/problem+json' } });
    const events: string[] = [];
    const client = new ApiClient({ baseUrl: 'https://api.example.test/v1', apiKey: 'svc_live_test0000000000', dispatcher: agent, onEvent: (event) => void (event.type === 'wait' && events.push(event.phase)) });
    await expect(client.get('/me')).rejects.toMatchObject({ status: 404 });
    expect(events).toEqual(['start', 'end']);
    await agent.close();
  });
});
