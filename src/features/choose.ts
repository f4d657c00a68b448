/** Small prompt pieces shared by the guided `links create` and `orders place`. */
import type { Brand } from '../api/types.js';
import type { Prompter } from '../core/prompter.js';

/** A language from the account's locales, en-US first; nothing to ask when there is only one. */
export async function chooseLocale(prompter: Prompter, message: string, locales: readonly string[]): Promise<string | undefined> {
  if (locales.length <= 1) return undefined;
  const ordered = [...locales].sort((a, b) => Number(b === 'en-US') - Number(a === 'en-US'));
  return prompter.select(message, ordered.map((locale) => ({ name: locale, value: locale })));
}

/** Brand ids to names (the id itself when the key does not know the brand). */
export function brandNames(brands: readonly Brand[]): (id: string) => string {
  const byId = new Map(brands.map((brand) => [brand.id, brand.name]));
  return (id) => byId.get(id) ?? id;
}
