/** Custom-field answers as a person reads them: by label, not by field id. Shared by link and order views. */
import type { ApiClient } from '../api/client.js';
import { getMe } from '../api/resources.js';
import type { CustomFieldAnswer, TenantCustomField } from '../api/types.js';
import type { Output } from '../core/output.js';
import { truncate } from '../core/output.js';
import { terminalSafeLine } from '../core/sanitize.js';

export type FieldLabels = ReadonlyMap<string, string>;

/**
 * The account's field labels, read only for a table (a person's view) and only once: best effort,
 * without retries, since the ids stand in well enough when /me cannot be read.
 */
export async function fieldLabels(client: ApiClient, signal: AbortSignal): Promise<FieldLabels> {
  try {
    const me = (await getMe(client, { signal, retry: false })).body;
    return labelsOf(me?.tenant?.customFields ?? []);
  } catch {
    return new Map();
  }
}

export function labelsOf(fields: readonly TenantCustomField[]): FieldLabels {
  return new Map(fields.map((field) => [field.id, field.label]));
}

/** One line per answer, `  Label: value`, safe for a terminal and cut with `…` to its width. */
export function answerLines(output: Output, answers: readonly CustomFieldAnswer[] | undefined, labels: FieldLabels): string[] {
  const { chalk } = output;
  const width = output.io.terminalWidth();
  return (answers ?? []).map((answer) => {
    const label = `  ${terminalSafeLine(labels.get(answer.fieldId) ?? answer.fieldId)}: `;
    if (answer.checked !== null && answer.checked !== undefined) return truncate(`${label}${answer.checked ? 'yes' : 'no'}`, width);
    if (answer.textValue === null || answer.textValue === undefined) return `${truncate(label, width - 10)}${chalk.dim('unanswered')}`;
    return truncate(`${label}${terminalSafeLine(answer.textValue)}`, width);
  });
}
