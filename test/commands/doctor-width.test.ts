/** `svc doctor` on a terminal of 80 columns: a long check wraps under its own detail, no line wider. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAtTerminal } from '../helpers/run.js';
import { tempConfigDir } from '../helpers/svc.js';
import { startSandbox, type TestSandbox } from '../sandbox/helpers.js';

let box: TestSandbox;
beforeAll(async () => {
  box = await startSandbox();
});
afterAll(async () => box?.close());

describe('svc doctor at 80 columns', () => {
  it('each detail wraps at a space under itself (11 columns in), the fix under its own indent; nothing wider than 80', async () => {
    const configDir = tempConfigDir();
    await box.admin('PATCH', '/keys/full', { webhookUrl: null });
    const env = { SVC_API_KEY: box.apiKey('full'), SVC_BASE_URL: box.info.baseUrl, SVC_CONFIG_DIR: configDir };
    const result = await runAtTerminal(['doctor'], env, 80);
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    // The api check names the key, its scopes and three brands: longer than one line.
    const api = lines.findIndex((line) => line.startsWith('✓ api      '));
    const continued = lines.slice(api + 1, lines.findIndex((line) => line.startsWith('✓ clock')));
    expect(continued.length).toBeGreaterThan(0);
    for (const line of continued) expect(line).toMatch(/^ {11}\S/);
    const me = (await box.api('GET', '/me')).body as { brands: { name: string }[] };
    const joined = [lines[api].slice(11), ...continued.map((line) => line.slice(11))].join(' ');
    expect(joined).toMatch(new RegExp(`^${box.info.baseUrl.replace(/[.]/g, '\\.')} answered GET /me in \\d+ ms: key full, scopes PERSONAL_LINKS, REWARD_STORES, brands ${me.brands.map((brand) => brand.name).join(', ')}$`));
    expect(lines.at(-2)).toBe('✓ webhook  no webhook URL is set on this key (fine: the event feed works without');
    expect(lines.at(-1)).toBe(`${' '.repeat(11)}one)`);
    expect(lines[0]).toBe(`✓ config   no config file yet (${join(configDir, 'config.json')}); nothing saved`.slice(0, lines[0].length));
  });
});
