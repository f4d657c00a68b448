/**
 * Output in one place: `table` for people, `jsonl` for pipes, `json` for whole documents, `csv`
 * for spreadsheets; `--fields` chooses the fields of each object (see fields.ts).
 * Commands hand over records and columns; this module decides how they reach stdout.
 * jsonl and json lists stream page by page, so memory does not grow with the number of items.
 */
import type { Chalk, ChalkInstance } from 'chalk';
import { cellText, leafPaths, project, valueAt } from './fields.js';
import type { IO } from './io.js';

export type Format = 'table' | 'json' | 'jsonl' | 'csv';
export const FORMATS: readonly Format[] = ['table', 'json', 'jsonl', 'csv'];

export interface Column<T> {
  header: string;
  value: (item: T) => string | number | boolean | null | undefined;
}

export interface ListOptions<T> {
  columns: Column<T>[];
  /** what the items are, for the "no … found" line */
  noun: string;
  /** how to fetch the next page, shown on a TTY when more exist: gets the cursor */
  nextHint?: (cursor: string) => string;
  /** CSV columns without --fields (the resource's fields); default: the first item's own fields */
  csvColumns?: readonly string[];
}

export class Output {
  private colorInstance?: ChalkInstance;

  constructor(
    readonly io: IO,
    readonly format: Format,
    private readonly chalkClass: typeof Chalk,
    /** --fields: the chosen dotted paths, already checked against the resource */
    readonly fields?: readonly string[],
  ) {}

  /** A chalk that colours only when colour is on (TTY, no NO_COLOR, no --no-color, or forced). */
  get chalk(): ChalkInstance {
    this.colorInstance ??= new this.chalkClass({ level: this.io.color ? 1 : 0 });
    return this.colorInstance;
  }

  /** One record: a custom table view for people, the API object itself for machines. */
  async object<T>(item: T, renderTable?: (item: T) => string | Promise<string>): Promise<void> {
    if (this.format === 'csv') {
      const csv = this.csv(this.fields ?? leafPaths(item));
      return csv.items([item]);
    }
    if (this.fields && this.format === 'table') {
      return this.io.write(await this.keyValueTable(Object.fromEntries(this.fields.map((path) => [path, valueAt(item, path)]))));
    }
    if (this.format === 'jsonl') return this.io.write(`${JSON.stringify(this.select(item))}\n`);
    if (this.format === 'json') return this.io.write(`${JSON.stringify(this.select(item), null, 2)}\n`);
    const text = renderTable ? await renderTable(item) : await this.keyValueTable(item as Record<string, unknown>);
    await this.io.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Streams pages of a list; returns how many items were written. */
  async list<T>(
    source: AsyncIterable<{ items: T[]; nextCursor: string | null }> | Iterable<{ items: T[]; nextCursor: string | null }>,
    options: ListOptions<T>,
  ): Promise<number> {
    let count = 0;
    let lastCursor: string | null = null;
    const array = this.format === 'json' ? this.jsonArray() : undefined;
    const csv = this.format === 'csv' ? this.csv(this.fields ?? options.csvColumns) : undefined;
    const columns = this.fields ? this.fieldColumns<T>() : options.columns;
    let complete = false;
    try {
      for await (const page of source) {
        lastCursor = page.nextCursor;
        if (page.items.length === 0) continue;
        const items = this.fields && this.format !== 'table' && !csv ? page.items.map((item) => this.select(item)) : page.items;
        if (csv) await csv.items(items);
        else if (array) await array.items(items);
        else if (this.format === 'jsonl') await this.io.write(items.map((item) => JSON.stringify(item)).join('\n') + '\n');
        else await this.io.write(await this.table(columns, page.items));
        count += page.items.length;
      }
      await csv?.end();
      complete = true;
    } finally {
      // An array that was opened is closed even when a later page fails, so what was printed stays
      // valid JSON; when the first page fails, stdout stays empty.
      if (array && (complete || array.count > 0)) await array.close().catch(() => undefined);
    }
    if (this.format === 'table' && count === 0) this.io.info(`No ${options.noun} found.`);
    if (lastCursor && options.nextHint && this.io.stderrIsTTY && count > 0) {
      this.io.info(this.chalk.dim(`More ${options.noun}: ${options.nextHint(lastCursor)}`));
    }
    return count;
  }

  /** The chosen fields of one object (the object itself without --fields), for JSON output. */
  select<T>(item: T): T | Record<string, unknown> {
    return this.fields ? project(item, this.fields) : item;
  }

  /** Table columns for --fields: one per path, headed by the path. */
  fieldColumns<T>(): Column<T>[] {
    return (this.fields ?? []).map((path) => ({ header: path, value: (item: T) => cellText(valueAt(item, path)) }));
  }

  /** `-o csv` for a stream: the header row before the first items, then rows page by page. */
  csv(columns?: readonly string[]): CsvWriter {
    return new CsvWriter(this.io, columns);
  }

  /** `-o json` for a stream: one array, written as items arrive. */
  jsonArray(): JsonArrayWriter {
    return new JsonArrayWriter(this.io);
  }

  /** `ruled`: a rule between rows, for tables whose cells span several lines. */
  async table<T>(columns: Column<T>[], items: T[], options: { ruled?: boolean } = {}): Promise<string> {
    const Table = await loadTable();
    const table = new Table({
      head: columns.map((column) => this.chalk.bold(column.header)),
      style: { head: [], border: [] },
      ...(options.ruled ? {} : { chars: COMPACT }),
    });
    for (const item of items) table.push(columns.map((column) => cell(column.value(item))));
    return `${table.toString()}\n`;
  }

  /** Two columns, field and value, for a record without a dedicated view. */
  async keyValueTable(record: Record<string, unknown>): Promise<string> {
    const Table = await loadTable();
    const table = new Table({ style: { head: [], border: [] }, chars: COMPACT });
    for (const [key, value] of Object.entries(record ?? {})) {
      table.push({ [this.chalk.bold(key)]: typeof value === 'object' && value !== null ? JSON.stringify(value) : cell(value) });
    }
    return `${table.toString()}\n`;
  }
}

export class JsonArrayWriter {
  /** items written so far */
  count = 0;

  constructor(private readonly io: IO) {}

  async items(values: readonly unknown[]): Promise<void> {
    if (values.length === 0) return;
    const body = values.map((value) => JSON.stringify(value, null, 2).replace(/^/gm, '  ')).join(',\n');
    await this.io.write(`${this.count === 0 ? '[\n' : ',\n'}${body}`);
    this.count += values.length;
  }

  async close(): Promise<void> {
    await this.io.write(this.count === 0 ? '[]\n' : '\n]\n');
  }
}

/**
 * RFC 4180 rows written by csv-stringify (loaded only for csv), one write per page. A cell that a
 * spreadsheet would run as a formula (starting with =, +, -, @, tab or CR) gets a leading '.
 * Columns are fixed by the first page when not given, so every row has the header's cells.
 */
export class CsvWriter {
  /** rows written so far */
  count = 0;
  private columns?: readonly string[];

  constructor(
    private readonly io: IO,
    columns?: readonly string[],
  ) {
    this.columns = columns;
  }

  async items(values: readonly unknown[]): Promise<void> {
    if (values.length === 0) return;
    const columns = (this.columns ??= leafPaths(values[0]));
    const rows = values.map((value) => columns.map((path) => csvCell(valueAt(value, path))));
    const { stringify } = await import('csv-stringify/sync');
    await this.io.write(stringify(this.count === 0 ? [[...columns], ...rows] : rows));
    this.count += values.length;
  }

  /** An empty list still gets its header row when the columns are known. */
  async end(): Promise<void> {
    if (this.count > 0 || !this.columns) return;
    const { stringify } = await import('csv-stringify/sync');
    await this.io.write(stringify([[...this.columns]]));
  }
}

/** One CSV cell, guarded against formula injection (OWASP: prefix with a single quote). */
export function csvCell(value: unknown): string {
  const text = cellText(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** No rule between rows: a list reads as a list, and twice as many rows fit on a screen. */
const COMPACT = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return String(value);
}

type TableClass = typeof import('cli-table3');
let tableClass: Promise<TableClass> | undefined;
function loadTable(): Promise<TableClass> {
  tableClass ??= import('cli-table3').then((module) => (module as unknown as { default: TableClass }).default ?? module);
  return tableClass;
}

/** First 8 characters of an id: tables only, never in json/jsonl. */
export function shortId(id: string | null | undefined): string {
  return id ? id.slice(0, 8) : '';
}
