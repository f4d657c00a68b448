/** Custom-field answers as a person reads them: by label, not by field id. Shared by link and order views. */
import type { CustomFieldAnswer } from '../api/types.js';
import type { Output } from '../core/output.js';
import { truncate } from '../core/output.js';
import { terminalSafeLine } from '../core/sanitize.js';
import type { Names } from '../app/names.js';

/** One line per answer, `  Label: value`, safe for a terminal and cut with `…` to its width. */
export function answerLines(output: Output, answers: readonly CustomFieldAnswer[] | undefined, names: Names): string[] {
  const { chalk } = output;
  const width = output.io.terminalWidth();
  return (answers ?? []).map((answer) => {
    const label = `  ${terminalSafeLine(names.field(String(answer.fieldId)) ?? answer.fieldId)}: `;
    if (answer.checked !== null && answer.checked !== undefined) return truncate(`${label}${answer.checked ? 'yes' : 'no'}`, width);
    if (answer.textValue === null || answer.textValue === undefined) return `${truncate(label, width - 10)}${chalk.dim('unanswered')}`;
    return truncate(`${label}${terminalSafeLine(answer.textValue)}`, width);
  });
}
