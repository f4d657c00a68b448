/** Custom-field answers as a person reads them: by label, not by field id. Shared by link and order views. */
import type { ApiClient } from '../api/client.js';
import type { CustomFieldAnswer, TenantCustomField } from '../api/types.js';
import type { Output } from '../core/output.js';
import { truncate } from '../core/output.js';
import { terminalSafeLine } from '../core/sanitize.js';
import { namesFor } from './names.js';

export type FieldLabels = ReadonlyMap<string, string>;

/**
 * The account's field labels, read only for a table (a person's view) and only once per run (the
 * names service): best effort, since the ids stand in well enough when /me cannot be read.
 */
export async function fieldLabels(client: ApiClient, signal: AbortSignal): Promise<FieldLabels> {
  return (await namesFor(client, signal)).fields;
}

export function labelsOf(fields: readonly TenantCustomField[]): FieldLabels {
  return new Map(fields.map((field) => [field.id.toLowerCase(), field.label]));
}

/** One line per answer, `  Label: value`, safe for a terminal and cut with `…` to its width. */
export function answerLines(output: Output, answers: readonly CustomFieldAnswer[] | undefined, labels: FieldLabels): string[] {
  const { chalk } = output;
  const width = output.io.terminalWidth();
  return (answers ?? []).map((answer) => {
    const label = `  ${terminalSafeLine(labels.get(String(answer.fieldId).toLowerCase()) ?? answer.fieldId)}: `;
    if (answer.checked !== null && answer.checked !== undefined) return truncate(`${label}${answer.checked ? 'yes' : 'no'}`, width);
    if (answer.textValue === null || answer.textValue === undefined) return `${truncate(label, width - 10)}${chalk.dim('unanswered')}`;
    return truncate(`${label}${terminalSafeLine(answer.textValue)}`, width);
  });
}
