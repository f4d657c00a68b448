import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run.js';
import { tempConfigDir } from '../helpers/svc.js';
import { startSandbox, type TestSandbox } from '../sandbox/helpers.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb.close();
});

describe('--debug keeps a player\'s data out of the log', () => {
  it('redacts name, e-mail, message and custom-field answers in the request and the response body lines', async () => {
    const me = (await sb.api('GET', '/me')).body;
    const campaign = (await sb.api('GET', '/campaigns')).body.items.find((c: { brandIds: string[] }) => c.brandIds.length === 1);
    const tier = me.tenant.customFields.find((f: { label: string }) => f.label === 'Player ID');
    const env = { SVC_API_KEY: sb.apiKey('full'), SVC_BASE_URL: sb.info.baseUrl, SVC_CONFIG_DIR: tempConfigDir() };
    const result = await runInProcess(
      ['links', 'create', '--campaign', campaign.id, '--name', 'Ada Lovelace', '--email', 'ada@example.com', '--message', 'Happy birthday', '--field', `${tier.id}=P-4711-XY`, '--idempotency-key', 'k1', '--debug', '-o', 'json'],
      env,
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const link = JSON.parse(result.stdout);
    const bodyLines = result.stderr.split('\n').filter((line) => /^[<>] [{[]/.test(line));
    // GET /me and GET /campaigns come first (campaign details for the prompt-less create); then the POST.
    expect(bodyLines.slice(-2)).toEqual([
      `> {"campaignId":"${campaign.id}","fullName":"[redacted]","email":"[redacted]","message":"[redacted]","customFields":[{"fieldId":"${tier.id}","textValue":"[redacted]"}]}`,
      `< ${JSON.stringify({ ...link, customFields: link.customFields.map((f: { fieldId: string }) => (f.fieldId === tier.id ? { fieldId: tier.id, textValue: '[redacted]', checked: null } : f)) })}`,
    ]);
    expect(result.stderr).toContain('> authorization: Bearer [redacted]\n');
    for (const personal of ['Ada', 'Lovelace', 'ada@example.com', 'Happy birthday', 'P-4711-XY', sb.apiKey('full')]) expect(result.stderr).not.toContain(personal);
  });
});
