/**
 * What a bulk run tells at its end on stderr: the counts (`created 3, replayed 0, failed 10 of 13
 * rows in 1.2s`); on a terminal, the failed rows by the line of the file each starts on (row 2 of a
 * CSV file is line 3: the header is line 1) with their first error; and, whatever stderr is, a
 * warning when rows were created anew in a file that ran before — an edited row gets a new derived
 * key, so its player now has a second link.
 */
import type { PersonalLink } from '../../api/types.js';
import type { Problem } from '../../core/errors.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { truncate } from '../../core/width.js';
import type { RowProblem } from './rows.js';

/** Failed rows listed by line on a terminal; the rest are counted (stdout has every row). */
const LISTED_FAILURES = 20;
/** Lines named in the re-run warning. */
const LISTED_LINES = 10;

export type RowResult = ({ ok: true; link: PersonalLink; replayed: boolean; dryRun?: boolean } | { ok: false; error: Partial<Problem> | RowProblem }) & {
  row: number;
  /** the file line the row starts on */
  line: number;
  /** a replay at the first attempt: the row was done by an earlier run */
  doneBefore?: boolean;
  /** the row's key was derived from its values (no idempotencyKey column value) */
  derivedKey?: boolean;
};

export class Report {
  readonly tally = { total: 0, created: 0, replayed: 0, failed: 0 };
  private readonly failures: { line: number; error: string }[] = [];
  private doneBefore = 0;
  private readonly createdAnew: number[] = [];
  private createdAnewCount = 0;

  /** Counts a row as it finishes (also when its line could not be written). */
  count(result: RowResult): void {
    this.tally.total++;
    if (!result.ok) {
      this.tally.failed++;
      if (this.failures.length < LISTED_FAILURES) this.failures.push({ line: result.line, error: firstError(result.error) });
      return;
    }
    if (result.replayed) this.tally.replayed++;
    else this.tally.created++;
    if (result.doneBefore) this.doneBefore++;
    if (!result.replayed && !result.dryRun && result.derivedKey) {
      this.createdAnewCount++;
      if (this.createdAnew.length < LISTED_LINES) this.createdAnew.push(result.line);
    }
  }

  summary(elapsedMs: number, finished: boolean, untried?: string): string {
    const { created, replayed, failed, total } = this.tally;
    const line = `created ${created}, replayed ${replayed}, failed ${failed} of ${total} rows in ${(elapsedMs / 1000).toFixed(1)}s`;
    if (untried !== undefined) return `${line} (output closed: ${untried} not tried; run the same file again to finish: rows already done replay)`;
    return finished ? line : `${line} (stopped early; run the same file again to finish: rows already done replay)`;
  }

  /** The failed rows by file line with their first error, for a person at a terminal `width` wide. */
  failedRows(source: string, width?: number): string[] {
    if (this.failures.length === 0) return [];
    const fit = (text: string) => (width === undefined ? text : truncate(text, width));
    const lines = [`failed rows, by line of ${terminalSafeLine(source)}:`, ...[...this.failures].sort((a, b) => a.line - b.line).map((failure) => fit(`  line ${failure.line}: ${terminalSafeLine(failure.error)}`))];
    const more = this.tally.failed - this.failures.length;
    if (more > 0) lines.push(`  … and ${more} more (stdout has every row's error)`);
    return lines;
  }

  /** The warning when rows were created in a file whose other rows an earlier run had done; else none. */
  reRunWarning(): string[] {
    if (this.doneBefore === 0 || this.createdAnewCount === 0) return [];
    const more = this.createdAnewCount - this.createdAnew.length;
    const lines = `${this.createdAnew.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
    const rows = this.createdAnewCount === 1 ? 'a row of this file was' : `${this.createdAnewCount} rows of this file were`;
    return [
      `warning: ${rows} created now though an earlier run did the file's other rows (line ${lines}): a row edited since that run made a second link for its player (cancel the old one with svc links cancel).`,
      'hint: add an idempotencyKey column (one value per player) so a row keeps its one link whatever you edit.',
    ];
  }
}

/** A failed row's first error: its first field error, else the problem's detail (without the "row N:" the row already says). */
function firstError(error: Partial<Problem> | RowProblem): string {
  const first = error.errors?.[0]?.message ?? error.detail ?? error.title ?? error.code ?? 'failed';
  return first.replace(/^row \d+: /, '');
}
