/** Small helpers every verb's declaration uses: examples, enum and --fields options, list flags. */
import type { Command, OptionValues } from '@commander-js/extra-typings';
import { Option } from '../app/commander.js';
import { RESOURCE_LABEL, fieldPaths, type Resource } from '../api/resource-fields.js';
import { API_LIMITS } from '../api/types.js';
import { parseFieldList } from '../core/field-paths.js';

/** The help's "Examples:" block. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

/** A repeatable flag's values in order (no default shown in help). */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export { thousands } from '../core/output.js';

/**
 * An option taking one of an API enum (from the API description): help lists the values and
 * completions offer them; the command checks the value itself (case-insensitively).
 */
export function enumOption<Flags extends string>(flags: Flags, description: string, values: readonly string[]) {
  const option = new Option(flags, description);
  option.argChoices = [...values];
  return option;
}

/** Resources whose records hold custom-field answers, which `--fields field:LABEL` names. */
const WITH_CUSTOM_FIELDS: readonly Resource[] = ['link', 'order'];

/** `--fields a,b,c.d`, checked against the resource's fields while parsing (exit 2 before any request). */
export function fieldsOption(resource: Resource) {
  const custom = WITH_CUSTOM_FIELDS.includes(resource);
  const help = custom
    ? 'only these fields, dotted paths for nested ones, field:LABEL (or field:ID) for a custom field, in this order'
    : 'only these fields, dotted paths for nested ones, in this order';
  return new Option('--fields <a,b.c>', help).argParser((value: string) => parseFieldList(value, fieldPaths(resource), RESOURCE_LABEL[resource], custom));
}

/** The flags every `ls` verb takes. */
export function listOptions<Args extends unknown[], Options extends OptionValues, Globals extends OptionValues>(command: Command<Args, Options, Globals>, resource: Resource) {
  return command
    .addOption(fieldsOption(resource))
    .option('--limit <n>', `page size, ${API_LIMITS.pageSizeMin}-${API_LIMITS.pageSizeMax} (default ${API_LIMITS.pageSizeDefault})`)
    .option('--after <cursor>', "start after this cursor (the previous page's nextCursor)")
    .option('--all', 'follow cursors to the end, streaming every item');
}

/** `--dry-run` of a changing command: its requests are printed, not sent. */
export function dryRunOption(description = 'print each request it would send as a JSON line ({method, url, headers, body}; key redacted) and send nothing') {
  return new Option('--dry-run', description);
}
