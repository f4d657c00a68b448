/** The end of a bulk run on stderr: failed rows by file line (on a terminal), and the warning for a re-run that made second links. */
import { describe, expect, it } from 'vitest';
import type { PersonalLink } from '../../src/api/types.js';
import { Report, type RowResult } from '../../src/features/bulk/report.js';

const link = { id: 'l1' } as PersonalLink;
const created = (row: number, line: number, derivedKey = true): RowResult => ({ row, line, ok: true, link, replayed: false, derivedKey });
const doneBefore = (row: number, line: number): RowResult => ({ row, line, ok: true, link, replayed: true, doneBefore: true, derivedKey: true });
const invalid = (row: number, line: number, message: string): RowResult => ({ row, line, ok: false, error: { code: 'invalid_row', title: 'Invalid row', detail: `row ${row}: ${message}`, errors: [{ field: 'fullName', code: 'required', message }] } });

describe('bulk report', () => {
  it('lists the failed rows by the file line each starts on, with their first error, in line order', () => {
    const report = new Report();
    report.count(created(1, 2));
    report.count(invalid(3, 5, 'fullName: required'));
    report.count(invalid(2, 3, 'fullName: required'));
    report.count({ row: 4, line: 6, ok: false, error: { status: 400, code: 'invalid_request', detail: "brandId: brandId is required: the key can use more than one of the campaign's brands." } });
    report.count({ row: 5, line: 7, ok: false, error: { code: 'invalid_row', title: 'Invalid row', detail: 'row 5: line 7, column 5: not valid UTF-8 (save the file as UTF-8); not sent', errors: [] } });
    expect(report.summary(1234, true)).toBe('created 1, replayed 0, failed 4 of 5 rows in 1.2s');
    expect(report.failedRows('players.csv')).toEqual([
      'failed rows, by line of players.csv:',
      '  line 3: fullName: required',
      '  line 5: fullName: required',
      "  line 6: brandId: brandId is required: the key can use more than one of the campaign's brands.",
      '  line 7: line 7, column 5: not valid UTF-8 (save the file as UTF-8); not sent',
    ]);
    expect(report.failedRows('players.csv', 40)[3]).toBe('  line 6: brandId: brandId is required:…');
  });

  it('lists 20 failed rows and counts the rest; none when every row succeeded', () => {
    const report = new Report();
    for (let row = 1; row <= 25; row++) report.count(invalid(row, row + 1, 'fullName: required'));
    const lines = report.failedRows('standard input');
    expect(lines).toHaveLength(22);
    expect(lines.at(-1)).toBe("  … and 5 more (stdout has every row's error)");
    const ok = new Report();
    ok.count(created(1, 2));
    expect(ok.failedRows('players.csv')).toEqual([]);
  });

  it('warns when rows were created in a file an earlier run did, and suggests an idempotencyKey column', () => {
    const report = new Report();
    report.count(doneBefore(1, 2));
    report.count(created(2, 3));
    report.count(doneBefore(3, 4));
    expect(report.reRunWarning()).toEqual([
      "warning: a row of this file was created now though an earlier run did the file's other rows (line 3): a row edited since that run made a second link for its player (cancel the old one with svc links cancel).",
      'hint: add an idempotencyKey column (one value per player) so a row keeps its one link whatever you edit.',
    ]);
  });

  it('no warning on a first run, a re-run that only replays, or rows with their own idempotencyKey', () => {
    const first = new Report();
    first.count(created(1, 2));
    first.count({ row: 2, line: 3, ok: true, link, replayed: true, derivedKey: true });
    expect(first.reRunWarning()).toEqual([]);
    const again = new Report();
    again.count(doneBefore(1, 2));
    expect(again.reRunWarning()).toEqual([]);
    const ownKeys = new Report();
    ownKeys.count(doneBefore(1, 2));
    ownKeys.count(created(2, 3, false));
    expect(ownKeys.reRunWarning()).toEqual([]);
  });
});
