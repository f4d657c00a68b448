import { describe, expect, it } from 'vitest';
import { fitColumns, truncate, type Column } from '../../src/core/output.js';

describe('truncate', () => {
  it('cuts at terminal width, counting wide characters as two, never splitting a character', () => {
    expect(truncate('日本語のテキスト', 7)).toBe('日本語…');
    expect(truncate('日本語のテキスト', 8)).toBe('日本語…');
    expect(truncate('ab🎁cd', 4)).toBe('ab…');
    expect(truncate('short', 5)).toBe('short');
  });
});

describe('fitColumns', () => {
  const columns: Column<unknown>[] = [
    { header: 'ID', value: () => '', id: true },
    { header: 'Name', value: () => '' },
    { header: 'Count', value: () => '', priority: 1 },
  ];
  const rows = (id: string, name: string) => [[[id], [name], ['1']]];

  it('keeps ids whole, shrinks the name, drops the optional column first when the name would get unreadable', () => {
    const id = 'x'.repeat(36);
    expect(fitColumns(columns, ['ID', 'Name', 'Count'], rows(id, 'n'.repeat(100)), 80)).toEqual([
      { index: 0, width: 36 },
      { index: 1, width: 80 - 36 - 5 - 10 },
      { index: 2, width: 5 },
    ]);
    expect(fitColumns(columns, ['ID', 'Name', 'Count'], rows(id, 'n'.repeat(100)), 70)).toEqual([
      { index: 0, width: 36 },
      { index: 1, width: 70 - 36 - 7 },
    ]);
    expect(fitColumns(columns, ['ID', 'Name', 'Count'], rows(id, 'n'.repeat(100)), 200)).toEqual([
      { index: 0, width: 36 },
      { index: 1, width: 100 },
      { index: 2, width: 5 },
    ]);
  });

  it('counts a column of empty cells at the width it is drawn (1), so the line still fits', () => {
    const marked: Column<unknown>[] = [{ header: '', value: () => '' }, ...columns];
    const layout = fitColumns(marked, ['', 'ID', 'Name', 'Count'], [[[''], ['x'.repeat(36)], ['n'.repeat(100)], ['1']]], 80);
    expect(layout[0]).toEqual({ index: 0, width: 1 });
    expect(layout.reduce((total, { width }) => total + width + 3, 1)).toBe(80);
  });

  it('lets even an "id" give way when no real id is that long, so the line still fits', () => {
    const layout = fitColumns(columns, ['ID', 'Name', 'Count'], rows('i'.repeat(500), 'n'.repeat(500)), 80);
    expect(layout.reduce((total, column) => total + column.width + 3, 1)).toBeLessThanOrEqual(80);
  });
});
