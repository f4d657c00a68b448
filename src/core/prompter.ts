/**
 * Prompts go through this small interface so commands can be tested with scripted answers.
 * The real one is backed by @inquirer/prompts, loaded only when a prompt is shown.
 */
import { terminalSafeLine } from './sanitize.js';

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
}

export interface Prompter {
  input(message: string, options?: { default?: string; required?: boolean; validate?: (value: string) => string | true }): Promise<string>;
  password(message: string): Promise<string>;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
  select<T>(message: string, choices: Choice<T>[]): Promise<T>;
  /** a select whose list is filtered by what the user types */
  search<T>(message: string, choices: Choice<T>[]): Promise<T>;
}

/**
 * What a prompt shows: messages and choices often carry the API's text (campaign, store and gift
 * names), so every one is made safe for the terminal here; the values returned are untouched.
 */
export function safeChoices<T>(choices: Choice<T>[]): Choice<T>[] {
  return choices.map((choice) => ({
    ...choice,
    name: terminalSafeLine(choice.name),
    // A description keeps its line breaks (a gift's text is written with them); each line is made safe.
    ...(choice.description === undefined ? {} : { description: choice.description.split(/\r?\n/).map(terminalSafeLine).join('\n') }),
  }));
}

export function inquirerPrompter(signal?: AbortSignal): Prompter {
  const load = () => import('@inquirer/prompts');
  const context = { output: process.stderr, signal };
  return {
    async input(message, options = {}) {
      const { input } = await load();
      const validate = options.validate;
      return input(
        {
          message: terminalSafeLine(message),
          default: options.default === undefined ? undefined : terminalSafeLine(options.default),
          required: options.required,
          validate: validate && ((value: string) => {
            const verdict = validate(value);
            return verdict === true ? true : terminalSafeLine(verdict);
          }),
        },
        context,
      );
    },
    async password(message) {
      const { password } = await load();
      return password({ message: terminalSafeLine(message), mask: true }, context);
    },
    async confirm(message, defaultValue = false) {
      const { confirm } = await load();
      return confirm({ message: terminalSafeLine(message), default: defaultValue }, context);
    },
    async select(message, choices) {
      const { select } = await load();
      return select({ message: terminalSafeLine(message), choices: safeChoices(choices), pageSize: 12 }, context);
    },
    async search(message, unsafeChoices) {
      const { search } = await load();
      const choices = safeChoices(unsafeChoices);
      return search(
        {
          message: terminalSafeLine(message),
          pageSize: 12,
          source: (term) => {
            const needle = (term ?? '').toLowerCase();
            return choices.filter(
              (choice) => choice.name.toLowerCase().includes(needle) || (choice.description ?? '').toLowerCase().includes(needle),
            );
          },
        },
        context,
      );
    },
  };
}
