/** Custom-field answers as a person reads them: by label, not by field id. Shared by link and order views. */
import type { ApiClient } from '../api/client.js';
import type { CustomFieldAnswer, Me, TenantCustomField } from '../api/types.js';
import type { Output } from '../core/output.js';

export type FieldLabels = ReadonlyMap<string, string>;

/**
 * The account's field labels, read only for a table (a person's view) and only once: best effort,
 * without retries, since the ids stand in well enough when /me cannot be read.
 */
export async function fieldLabels(client: ApiClient, signal: AbortSignal): Promise<FieldLabels> {
  try {
    const me = (await client.request<Me>('GET', '/me', { signal, retry: false })).body;
    return labelsOf(me?.tenant?.customFields ?? []);
  } catch {
    return new Map();
  }
}

export function labelsOf(fields: readonly TenantCustomField[]): FieldLabels {
  return new Map(fields.map((field) => [field.id, field.label]));
}

export function answerLines(output: Output, answers: readonly CustomFieldAnswer[] | undefined, labels: FieldLabels): string[] {
  const { chalk } = output;
  return (answers ?? []).map((answer) => {
    const value = answer.checked !== null && answer.checked !== undefined ? (answer.checked ? 'yes' : 'no') : (answer.textValue ?? chalk.dim('unanswered'));
    return `  ${labels.get(answer.fieldId) ?? answer.fieldId}: ${value}`;
  });
}
