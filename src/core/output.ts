/**
 * Output in one place: `table` for people, `jsonl` for pipes, `json` for whole documents, `csv`
 * for spreadsheets; `--fields` chooses the fields of each object (see field-paths.ts).
 * Commands hand over records and columns; this module decides how they reach stdout.
 * jsonl and json lists stream page by page, so memory does not grow with the number of items.
 */
import type { Chalk, ChalkInstance } from 'chalk';
import { CUSTOM_FIELD, cellText, headerOf, leafPaths, project, valueAt, type FieldLabel } from './field-paths.js';
import type { IO } from './io.js';
import { jsonText, terminalSafe, terminalSafeLine } from './sanitize.js';
import { textWidth, truncate, wrapLine } from './width.js';

export { truncate, wrapLine };

/** 2000 → `2,000` (not toLocaleString: setting up Intl for it costs milliseconds at start-up). */
export const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

export type Format = 'table' | 'json' | 'jsonl' | 'csv';
export const FORMATS: readonly Format[] = ['table', 'json', 'jsonl', 'csv'];

export interface Column<T> {
  header: string;
  value: (item: T) => string | number | boolean | null | undefined;
  /** an id (or any value a person copies): always shown whole, never shortened */
  id?: boolean;
  /**
   * Optional column: when the terminal is too narrow for every column at its smallest, optional
   * columns are left out, lowest priority first. Columns without one are always shown.
   */
  priority?: number;
  /** the value's line breaks are the view's own (each line already made safe): kept as lines of the cell */
  multiline?: boolean;
  /** a long value wraps onto more lines of its cell (at spaces where it can) instead of shrinking with … */
  wrap?: boolean;
  /** colour of the item's cell (a status by its meaning), applied after fitting; only where colour is on */
  paint?: (item: T, chalk: ChalkInstance) => (text: string) => string;
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
  /** the account's custom fields, once read: headers of `field:<id>` columns */
  private labels: readonly FieldLabel[] = [];
  private labelsRead?: Promise<void>;

  constructor(
    readonly io: IO,
    readonly format: Format,
    private readonly chalkClass: typeof Chalk,
    /** --fields: the chosen dotted paths, already checked against the resource (custom fields as `field:<id>`) */
    readonly fields?: readonly string[],
    /** reads the account's custom fields (id and label); only when a view shows them by label */
    private readonly customFields?: () => Promise<readonly FieldLabel[]>,
  ) {}

  /**
   * The columns with custom fields by label: `customFields` (one JSON cell) becomes one column per
   * field of the account, and the labels of chosen `field:<id>` columns are read. No request when
   * neither is there.
   */
  async withCustomFields(columns: readonly string[]): Promise<string[]> {
    const custom = columns.includes('customFields') || columns.some((path) => path.startsWith(CUSTOM_FIELD));
    if (custom && this.customFields) {
      this.labelsRead ??= this.customFields().then(
        (labels) => void (this.labels = labels),
        () => undefined,
      );
      await this.labelsRead;
    }
    if (!columns.includes('customFields') || this.labels.length === 0) return [...columns];
    return columns.flatMap((path) => (path === 'customFields' ? this.labels.map((field) => `${CUSTOM_FIELD}${field.id}`) : [path]));
  }

  /** A column's header: a custom field's label, any other path as it is. */
  header(path: string): string {
    return headerOf(path, this.labels);
  }

  /** A chalk that colours only when colour is on (TTY, no NO_COLOR, no --no-color, or forced). */
  get chalk(): ChalkInstance {
    this.colorInstance ??= new this.chalkClass({ level: this.io.color ? 1 : 0 });
    return this.colorInstance;
  }

  /** One record: a custom table view for people, the API object itself for machines. */
  async object<T>(item: T, renderTable?: (item: T) => string | Promise<string>): Promise<void> {
    if (this.format === 'csv') {
      const csv = this.csv(await this.withCustomFields(this.fields ?? leafPaths(item)));
      return csv.items([item]);
    }
    if (this.fields) await this.withCustomFields(this.fields);
    if (this.fields && this.format === 'table') {
      return this.io.write(await this.keyValueTable(Object.fromEntries(this.fields.map((path) => [this.header(path), valueAt(item, path)]))));
    }
    if (this.format === 'jsonl') return this.io.write(`${this.json(this.select(item))}\n`);
    if (this.format === 'json') return this.io.write(`${this.json(this.select(item), 2)}\n`);
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
    const csvColumns = this.fields ?? options.csvColumns;
    const csv = this.format === 'csv' ? this.csv(csvColumns && (await this.withCustomFields(csvColumns))) : undefined;
    if (this.fields && !csv) await this.withCustomFields(this.fields);
    const columns = this.fields ? this.fieldColumns<T>() : options.columns;
    let complete = false;
    try {
      for await (const page of source) {
        lastCursor = page.nextCursor;
        if (page.items.length === 0) continue;
        const items = this.fields && this.format !== 'table' && !csv ? page.items.map((item) => this.select(item)) : page.items;
        if (csv) await csv.items(items);
        else if (array) await array.items(items);
        else if (this.format === 'jsonl') await this.io.write(items.map((item) => this.json(item)).join('\n') + '\n');
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
      this.io.info(this.chalk.dim(`More ${terminalSafeLine(options.noun)}: ${terminalSafeLine(options.nextHint(lastCursor))}`));
    }
    return count;
  }

  /** The chosen fields of one object (the object itself without --fields), for JSON output. */
  select<T>(item: T): T | Record<string, unknown> {
    return this.fields ? project(item, this.fields, this.labels) : item;
  }

  /** Table columns for --fields: one per path, headed by the path. */
  fieldColumns<T>(): Column<T>[] {
    return (this.fields ?? []).map((path) => ({ header: this.header(path), value: (item: T) => cellText(valueAt(item, path)) }));
  }

  /** `-o csv` for a stream: the header row before the first items, then rows page by page. */
  csv(columns?: readonly string[]): CsvWriter {
    return new CsvWriter(this.io, columns, (path) => this.header(path));
  }

  /** `-o json` for a stream: one array, written as items arrive. */
  jsonArray(): JsonArrayWriter {
    return new JsonArrayWriter(this.io);
  }

  /** JSON text for stdout: the same data, with the characters a terminal would act on escaped. */
  json(value: unknown, indent?: number): string {
    return jsonText(value, indent, this.io.stdoutIsTTY);
  }

  /**
   * A table that fits the terminal (`width`, default the terminal's): every string is made safe for
   * it; ids stay whole, other cells shrink with `…`, and optional columns are left out when even
   * shrunk cells do not fit. `ruled`: a rule between rows, for tables whose cells span several lines.
   */
  async table<T>(columns: Column<T>[], items: T[], options: { ruled?: boolean; width?: number } = {}): Promise<string> {
    const rows = items.map((item) => columns.map((column) => cellLines(column.value(item), column.multiline)));
    const headers = columns.map((column) => terminalSafeLine(column.header));
    const layout = fitColumns(columns, headers, rows, options.width ?? this.io.terminalWidth());
    const Table = await loadTable();
    const table = new Table({
      head: layout.map(({ index, width }) => this.chalk.bold(truncate(headers[index], width))),
      colWidths: layout.map(({ width }) => width + PADDING),
      style: { head: [], border: [] },
      ...(options.ruled ? {} : { chars: COMPACT }),
    });
    rows.forEach((row, r) =>
      table.push(
        layout.map(({ index, width }) => {
          const paint = this.io.color ? columns[index].paint?.(items[r], this.chalk) : undefined;
          const lines = columns[index].wrap ? row[index].flatMap((line) => wrapLine(line, width)) : row[index].map((line) => truncate(line, width));
          return lines.map((line) => (paint ? paint(line) : line)).join('\n');
        }),
      ),
    );
    return `${table.toString()}\n`;
  }

  /** Two columns, field and value, for a record without a dedicated view. */
  async keyValueTable(record: Record<string, unknown>): Promise<string> {
    const entries = Object.entries(record ?? {});
    const width = this.io.terminalWidth();
    const keys = entries.map(([key]) => terminalSafeLine(key));
    const keyWidth = Math.min(Math.max(0, ...keys.map((key) => textWidth(key))), Math.max(MIN_CELL, Math.floor(width / 3)));
    const valueWidth = Math.max(MIN_CELL, width - keyWidth - 2 * PADDING - 3);
    const Table = await loadTable();
    const table = new Table({ style: { head: [], border: [] }, chars: COMPACT, colWidths: [keyWidth + PADDING, valueWidth + PADDING] });
    entries.forEach(([, value], i) => {
      const text = typeof value === 'object' && value !== null ? JSON.stringify(value) : cell(value);
      table.push({ [this.chalk.bold(truncate(keys[i], keyWidth))]: truncate(terminalSafeLine(text), valueWidth) });
    });
    return `${table.toString()}\n`;
  }

  /**
   * Labelled lines of a detail view (`Status  ACTIVE`), fitted to the terminal: a value marked whole
   * (an id, a URL) that does not fit beside its label goes on its own line below it; any other value
   * shrinks with `…`. Values are made safe here; pass them as the API sent them.
   */
  details(rows: readonly DetailRow[]): string[] {
    const { chalk } = this;
    const width = this.io.terminalWidth();
    const labelWidth = Math.max(0, ...rows.map((row) => textWidth(row.label)));
    return rows.flatMap(({ label, value, whole, after, paint = (text: string) => text }) => {
      const head = `${chalk.bold(label.padEnd(labelWidth))}  `;
      if (value === null || value === undefined) return [`${head}${chalk.dim('—')}`];
      const safe = terminalSafeLine(value);
      const tail = after === undefined ? '' : terminalSafeLine(after);
      const room = width - labelWidth - 2;
      if (textWidth(safe) + textWidth(tail) <= room) return [`${head}${paint(safe)}${tail}`];
      // A name shrinks before the id kept after it (`Lucky Sta… (6cf7…whole)`); when even that cannot fit, the id goes below.
      if (tail && room - textWidth(tail) >= MIN_CELL) return [`${head}${paint(truncate(safe, room - textWidth(tail)))}${tail}`];
      if (tail) return [`${head}${paint(truncate(safe, Math.max(1, room)))}`, tail.trim()];
      if (whole) return [chalk.bold(label), paint(safe)];
      return [`${head}${paint(truncate(safe, Math.max(1, room)))}`];
    });
  }
}

/** One line of a detail view: `whole` keeps the value whole (an id, a URL); `paint` colours it. */
export interface DetailRow {
  label: string;
  /** null or undefined shows a dimmed `—` */
  value: string | number | null | undefined;
  whole?: boolean;
  /** kept whole after the value, which shrinks first: the id after a name */
  after?: string;
  paint?: (text: string) => string;
}

export class JsonArrayWriter {
  /** items written so far */
  count = 0;

  constructor(private readonly io: IO) {}

  async items(values: readonly unknown[]): Promise<void> {
    if (values.length === 0) return;
    const body = values.map((value) => jsonText(value, 2, this.io.stdoutIsTTY).replace(/^/gm, '  ')).join(',\n');
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
    /** a column's header row cell: its path, or a custom field's label */
    private readonly header: (path: string) => string = (path) => path,
  ) {
    this.columns = columns;
  }

  async items(values: readonly unknown[]): Promise<void> {
    if (values.length === 0) return;
    const columns = (this.columns ??= leafPaths(values[0]));
    const rows = values.map((value) => columns.map((path) => csvCell(valueAt(value, path))));
    const { stringify } = await import('csv-stringify/sync');
    // The header's cells are the server's keys: guarded like data cells.
    await this.io.write(this.onTerminal(stringify(this.count === 0 ? [columns.map((path) => csvCell(this.header(path))), ...rows] : rows)));
    this.count += values.length;
  }

  /** An empty list still gets its header row when the columns are known. */
  async end(): Promise<void> {
    if (this.count > 0 || !this.columns) return;
    const { stringify } = await import('csv-stringify/sync');
    await this.io.write(this.onTerminal(stringify([this.columns.map((path) => csvCell(this.header(path)))])));
  }

  /** CSV on a terminal is lines on a terminal: through the sanitizer (in a pipe or file, exact). */
  private onTerminal(text: string): string {
    return this.io.stdoutIsTTY ? terminalSafe(text) : text;
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

/** A cell's lines, each safe for a terminal; a single-line column shows line breaks as `\\n`. */
function cellLines(value: unknown, multiline = false): string[] {
  const text = cell(value);
  return multiline ? text.split('\n').map(terminalSafeLine) : [terminalSafeLine(text)];
}

/** cli-table3 pads each cell with one space on either side. */
const PADDING = 2;
/** the narrowest a shrinking column gets */
const MIN_CELL = 8;
/** the width a shrinking column keeps before optional columns give way to it */
const READABLE_CELL = 24;

/**
 * Which columns are shown and how wide (content width, without padding), so that the whole line
 * (borders included) is at most `width`: ids keep their width, other columns shrink towards
 * MIN_CELL, and optional columns go, lowest priority first, while even that is too wide (a narrow
 * one comes back when it fits beside what stayed).
 */
export function fitColumns<T>(columns: Column<T>[], headers: string[], rows: string[][][], width: number): { index: number; width: number }[] {
  // At least 1: a column of empty cells is still drawn one wide (see the end).
  const natural = columns.map((_, i) => Math.max(1, textWidth(headers[i]), ...rows.map((row) => Math.max(0, ...row[i].map((line) => textWidth(line))))));
  const smallest = columns.map((column, i) => (column.id ? natural[i] : Math.min(natural[i], MIN_CELL)));
  // Optional columns are shown only beside a readable width of the others (a name cut to 8 is worth
  // less than a count beside it).
  const wanted = columns.map((column, i) => (column.id || column.priority !== undefined ? smallest[i] : Math.min(natural[i], READABLE_CELL)));
  const shown = columns.map((_, i) => i);
  const overhead = () => shown.length * (PADDING + 1) + 1;
  const sum = (values: number[]) => shown.reduce((total, i) => total + values[i], 0);
  const dropped: number[] = [];
  while (sum(wanted) + overhead() > width) {
    const optional = shown.filter((i) => columns[i].priority !== undefined);
    if (optional.length === 0) break;
    // The lowest priority goes first; among equals, the rightmost.
    const drop = optional.reduce((worst, i) => (columns[i].priority! <= columns[worst].priority! ? i : worst));
    shown.splice(shown.indexOf(drop), 1);
    dropped.push(drop);
  }
  // A narrow column dropped early may fit beside what stayed: take it back, highest priority first.
  for (const i of dropped.reverse()) {
    if (sum(wanted) + wanted[i] + overhead() + PADDING + 1 > width) continue;
    shown.push(i);
    shown.sort((a, b) => a - b);
  }
  const widths = [...natural];
  let excess = sum(natural) + overhead() - width;
  // Width comes from the widest shrinkable column first, down to its smallest; only when that is not
  // enough (an "id" longer than any real one) do whole columns give way too.
  const floor = columns.map((_, i) => Math.min(natural[i], MIN_CELL));
  for (const limit of [smallest, floor]) {
    while (excess > 0) {
      const shrinkable = shown.filter((i) => widths[i] > limit[i]);
      if (shrinkable.length === 0) break;
      const widest = shrinkable.reduce((a, b) => (widths[b] > widths[a] ? b : a));
      // Down to the next widest (or as far as needed) in one step: a huge cell costs no more than a small one.
      const next = Math.max(limit[widest], ...shrinkable.filter((i) => i !== widest).map((i) => widths[i]), widths[widest] - excess);
      const cut = Math.max(1, widths[widest] - next);
      widths[widest] -= cut;
      excess -= cut;
    }
  }
  return shown.map((index) => ({ index, width: Math.max(1, widths[index]) }));
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
