import { describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { ApiClient } from '../../src/api/client.js';
import { run, type declare } from '../../src/commands/links/ls.js';
import { parseVerb } from '../helpers/parse.js';
import { testContext } from '../helpers/terminal.js';

const CAMPAIGN = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';

describe('the next-page hint', () => {
  it('repeats the filters, so following it continues the same list', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('https://api.example.test')
      .intercept({ path: `/v1/personal-links?campaignId=${CAMPAIGN}&status=ACTIVE&limit=2` })
      .reply(200, { items: [{ id: 'a' }, { id: 'b' }], nextCursor: 'c1' }, { headers: { 'content-type': 'application/json' } });
    const client = new ApiClient({ baseUrl: 'https://api.example.test/v1', apiKey: 'svc_live_test0000000000', dispatcher: agent });
    const { ctx, terminal } = testContext({ tty: { stderr: true }, client });
    const { options } = await parseVerb<typeof declare>(['links', 'ls', '--campaign', CAMPAIGN, '--status', 'active', '--limit', '2']);
    await run(ctx, options);
    await terminal.settled();
    expect(terminal.stderr).toBe(`More links: svc links ls --campaign ${CAMPAIGN} --status active --limit 2 --after c1\n`);
    agent.assertNoPendingInterceptors();
    await agent.close();
  });
});
