/**
 * The output layer's documented behaviour: jsonl one line per item, json one document (a list as one
 * array, valid even when a later page fails), tables for people, "No … found." and the next-page hint
 * on stderr only, colour only when allowed. Table layout (widths, borders) is the table library's.
 */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { IO } from '../../src/core/io.js';
import { testTerminal } from '../helpers/terminal.js';
import { FORMATS, Output, shortId, type Format } from '../../src/core/output.js';

interface Captured {
  output: Output;
  stdout: () => string;
  stderr: () => string;
}

function capture(format: Format, { tty = false, env = {} as Record<string, string> } = {}): Captured {
  // Colour is what these tests look at: NO_COLOR only where a test sets it.
  const terminal = testTerminal({ tty: { stdout: tty, stderr: tty }, env: { NO_COLOR: undefined, ...env } });
  return { output: new Output(new IO(terminal.streams), format, Chalk), stdout: () => terminal.stdout, stderr: () => terminal.stderr };
}

/** PassThrough delivers 'data' asynchronously. */
const settled = () => new Promise((resolve) => setImmediate(resolve));
/** A table's cells row by row, without its rules and borders (drawing them is the table library's business). */
const cells = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.includes('│'))
    .map((line) => line.split('│').slice(1, -1).map((cell) => cell.trim()));

const columns = [
  { header: 'ID', value: (item: { id: string; n: number | null }) => item.id },
  { header: 'N', value: (item: { id: string; n: number | null }) => item.n },
];
const pages = (...lists: { id: string; n: number | null }[][]) => lists.map((items, index) => ({ items, nextCursor: index < lists.length - 1 ? `c${index + 1}` : null }));

describe('object', () => {
  const item = { id: 'a', nested: { list: [1, 2] }, text: 'é "quoted"' };

  it('jsonl: the object as one line', async () => {
    const { output, stdout } = capture('jsonl');
    await output.object(item);
    await settled();
    expect(stdout()).toBe(`${JSON.stringify(item)}\n`);
  });

  it('json: the object indented by two spaces', async () => {
    const { output, stdout } = capture('json');
    await output.object(item);
    await settled();
    expect(stdout()).toBe(`${JSON.stringify(item, null, 2)}\n`);
  });

  it('table: the custom view, ending in exactly one newline', async () => {
    const { output, stdout } = capture('table');
    await output.object(item, (value) => `view of ${value.id}`);
    await output.object(item, async (value) => `second ${value.id}\n`);
    await settled();
    expect(stdout()).toBe('view of a\nsecond a\n');
  });

  it('table without a view: one row per field, objects as JSON, null and undefined empty', async () => {
    const { output, stdout } = capture('table');
    await output.object({ id: 'a', nested: { x: 1 }, none: null, missing: undefined, yes: true, n: 0 });
    await settled();
    expect(cells(stdout())).toEqual([['id', 'a'], ['nested', '{"x":1}'], ['none', ''], ['missing', ''], ['yes', 'true'], ['n', '0']]);
  });
});

describe('list', () => {
  it('jsonl: every item as one line, page after page; returns the count', async () => {
    const { output, stdout, stderr } = capture('jsonl');
    const count = await output.list(pages([{ id: 'a', n: 1 }], [], [{ id: 'b', n: 2 }, { id: 'c', n: null }]), { columns, noun: 'things' });
    await settled();
    expect(count).toBe(3);
    expect(stdout()).toBe('{"id":"a","n":1}\n{"id":"b","n":2}\n{"id":"c","n":null}\n');
    expect(stderr()).toBe('');
  });

  it('json: one array across pages, the same text as the whole list printed at once', async () => {
    const { output, stdout } = capture('json');
    const items = [{ id: 'a', n: 1 }, { id: 'b', n: 2 }, { id: 'c', n: null }];
    expect(await output.list(pages(items.slice(0, 1), [], items.slice(1)), { columns, noun: 'things' })).toBe(3);
    await settled();
    expect(stdout()).toBe(`${JSON.stringify(items, null, 2)}\n`);
  });

  it('json: an empty list is [] and nothing else', async () => {
    const { output, stdout, stderr } = capture('json');
    expect(await output.list(pages([]), { columns, noun: 'things' })).toBe(0);
    await settled();
    expect(stdout()).toBe('[]\n');
    expect(stderr()).toBe('');
  });

  it('json: a page that fails after the first closes the array and passes the error on', async () => {
    const { output, stdout } = capture('json');
    async function* failing() {
      yield { items: [{ id: 'a', n: 1 }], nextCursor: 'c1' };
      throw new Error('page 2 failed');
    }
    await expect(output.list(failing(), { columns, noun: 'things' })).rejects.toThrow('page 2 failed');
    await settled();
    expect(stdout()).toBe(`${JSON.stringify([{ id: 'a', n: 1 }], null, 2)}\n`);
  });

  it('json: a first page that fails leaves stdout empty', async () => {
    const { output, stdout } = capture('json');
    async function* failing(): AsyncGenerator<{ items: { id: string; n: number | null }[]; nextCursor: string | null }> {
      throw new Error('no page');
    }
    await expect(output.list(failing(), { columns, noun: 'things' })).rejects.toThrow('no page');
    await settled();
    expect(stdout()).toBe('');
  });

  it('table: a header, then the cells of each page; null values empty', async () => {
    const { output, stdout, stderr } = capture('table');
    await output.list(pages([{ id: 'a', n: 1 }], [{ id: 'b', n: null }]), { columns, noun: 'things' });
    await settled();
    expect(cells(stdout())).toEqual([['ID', 'N'], ['a', '1'], ['ID', 'N'], ['b', '']]);
    expect(stderr()).toBe('');
  });

  it('table: nothing found is said on stderr; jsonl says nothing', async () => {
    const table = capture('table');
    await table.output.list(pages([]), { columns, noun: 'things' });
    const jsonl = capture('jsonl');
    await jsonl.output.list(pages([]), { columns, noun: 'things' });
    await settled();
    expect([table.stdout(), table.stderr()]).toEqual(['', 'No things found.\n']);
    expect([jsonl.stdout(), jsonl.stderr()]).toEqual(['', '']);
  });

  it('the next-page hint goes to a terminal on stderr, with the last cursor, only when there is more', async () => {
    const hint = (cursor: string) => `svc things ls --after ${cursor}`;
    const onTerminal = capture('jsonl', { tty: true, env: { NO_COLOR: '1' } });
    await onTerminal.output.list([{ items: [{ id: 'a', n: 1 }], nextCursor: 'c1' }, { items: [{ id: 'b', n: 2 }], nextCursor: 'c2' }], { columns, noun: 'things', nextHint: hint });
    const piped = capture('jsonl');
    await piped.output.list([{ items: [{ id: 'a', n: 1 }], nextCursor: 'c1' }], { columns, noun: 'things', nextHint: hint });
    const atEnd = capture('jsonl', { tty: true, env: { NO_COLOR: '1' } });
    await atEnd.output.list([{ items: [{ id: 'a', n: 1 }], nextCursor: null }], { columns, noun: 'things', nextHint: hint });
    const empty = capture('jsonl', { tty: true, env: { NO_COLOR: '1' } });
    await empty.output.list([{ items: [], nextCursor: 'c9' }], { columns, noun: 'things', nextHint: hint });
    await settled();
    expect(onTerminal.stderr()).toBe('More things: svc things ls --after c2\n');
    expect([piped.stderr(), atEnd.stderr(), empty.stderr()]).toEqual(['', '', '']);
  });
});

describe('jsonArray', () => {
  it('writes items as they come and counts them; no items close as []', async () => {
    const { output, stdout } = capture('json');
    const array = output.jsonArray();
    await array.items([]);
    await array.items([1, { a: 'b' }]);
    await array.items(['c']);
    await array.close();
    const empty = output.jsonArray();
    await empty.close();
    await settled();
    expect(array.count).toBe(3);
    expect(empty.count).toBe(0);
    expect(stdout()).toBe(`${JSON.stringify([1, { a: 'b' }, 'c'], null, 2)}\n[]\n`);
  });
});

describe('table', () => {
  it('ruled tables draw a rule between rows, compact ones do not', async () => {
    const { output } = capture('table');
    const rows = [{ id: 'a', n: 1 }, { id: 'b', n: 2 }];
    const compact = await output.table(columns, rows);
    const ruled = await output.table(columns, rows, { ruled: true });
    expect(compact.endsWith('\n')).toBe(true);
    expect(cells(compact)).toEqual([['ID', 'N'], ['a', '1'], ['b', '2']]);
    expect(cells(ruled)).toEqual(cells(compact));
    // A ruled table has rules between rows that the compact one leaves out.
    expect(ruled.split('\n').length).toBeGreaterThan(compact.split('\n').length);
  });
});

describe('colour', () => {
  it('colours only when colour is on: a terminal without NO_COLOR, or FORCE_COLOR', () => {
    expect(capture('table', { tty: true }).output.chalk.red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(capture('table', { env: { FORCE_COLOR: '1' } }).output.chalk.red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(capture('table', { tty: true, env: { NO_COLOR: '1' } }).output.chalk.red('x')).toBe('x');
    expect(capture('table').output.chalk.red('x')).toBe('x');
  });

  it('FORCE_COLOR=0 or false turns colour off on a terminal too (as Node and chalk read it)', () => {
    expect(capture('table', { tty: true, env: { FORCE_COLOR: '0' } }).output.chalk.red('x')).toBe('x');
    expect(capture('table', { tty: true, env: { FORCE_COLOR: 'false' } }).output.chalk.red('x')).toBe('x');
  });
});

describe('shortId and FORMATS', () => {
  it('shortId keeps the first 8 characters, and nothing for no id', () => {
    expect(shortId('0123456789abcdef')).toBe('01234567');
    expect(shortId('abc')).toBe('abc');
    expect([shortId(null), shortId(undefined), shortId('')]).toEqual(['', '', '']);
  });

  it('the formats are table, json, jsonl and csv', () => {
    expect(FORMATS).toEqual(['table', 'json', 'jsonl', 'csv']);
  });
});
