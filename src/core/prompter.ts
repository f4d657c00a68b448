/**
 * Prompts go through this small interface so commands can be tested with scripted answers.
 * The real one is backed by @inquirer/prompts, loaded only when a prompt is shown.
 */
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

export function inquirerPrompter(signal?: AbortSignal): Prompter {
  const load = () => import('@inquirer/prompts');
  const context = { output: process.stderr, signal };
  return {
    async input(message, options = {}) {
      const { input } = await load();
      return input(
        {
          message,
          default: options.default,
          required: options.required,
          validate: options.validate,
        },
        context,
      );
    },
    async password(message) {
      const { password } = await load();
      return password({ message, mask: true }, context);
    },
    async confirm(message, defaultValue = false) {
      const { confirm } = await load();
      return confirm({ message, default: defaultValue }, context);
    },
    async select(message, choices) {
      const { select } = await load();
      return select({ message, choices, pageSize: 12 }, context);
    },
    async search(message, choices) {
      const { search } = await load();
      return search(
        {
          message,
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
