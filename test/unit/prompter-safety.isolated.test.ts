/** Prompts show the API's text (campaign, store, gift names): messages and choices reach the terminal escaped; values come back untouched. */
import { describe, expect, it, vi } from 'vitest';

const seen: unknown[] = [];
vi.mock('@inquirer/prompts', () => ({
  select: async (config: { choices: { value: unknown }[] }) => (seen.push(config), config.choices[0].value),
  search: async (config: { source: (term: string) => { value: unknown; name: string }[] }) => {
    const found = config.source('evil');
    seen.push({ ...config, found });
    return found[0].value;
  },
  input: async (config: { validate: (value: string) => unknown }) => (seen.push({ ...config, verdict: config.validate('x') }), 'typed'),
  confirm: async (config: unknown) => (seen.push(config), true),
}));

const { inquirerPrompter } = await import('../../src/core/prompter.js');

const HOSTILE = 'Evil\x1b]0;pwned\x07\u009b2J\u202eZ';
const VISIBLE = String.raw`Evil\x1b]0;pwned\x07\u009b2J\u202eZ`;

describe('prompts', () => {
  it('select: message, choice names and descriptions escaped; the chosen value exact', async () => {
    seen.length = 0;
    const value = await inquirerPrompter().select(`Campaign ${HOSTILE}`, [{ name: HOSTILE, value: { id: HOSTILE }, description: HOSTILE }]);
    expect(value).toEqual({ id: HOSTILE });
    expect(seen).toEqual([{ message: `Campaign ${VISIBLE}`, choices: [{ name: VISIBLE, value: { id: HOSTILE }, description: VISIBLE }], pageSize: 12 }]);
  });

  it('search: filters on what is shown, returns the value exact', async () => {
    seen.length = 0;
    const value = await inquirerPrompter().search('Store', [{ name: HOSTILE, value: HOSTILE }, { name: 'Plain', value: 'plain' }]);
    expect(value).toBe(HOSTILE);
    expect((seen[0] as { found: unknown }).found).toEqual([{ name: VISIBLE, value: HOSTILE }]);
  });

  it('input and confirm: messages and validation messages escaped', async () => {
    seen.length = 0;
    await inquirerPrompter().input(`Name ${HOSTILE}`, { validate: () => `bad ${HOSTILE}` });
    await inquirerPrompter().confirm(`Place ${HOSTILE}?`);
    expect(seen).toMatchObject([
      { message: `Name ${VISIBLE}`, verdict: `bad ${VISIBLE}` },
      { message: `Place ${VISIBLE}?`, default: false },
    ]);
  });
});
