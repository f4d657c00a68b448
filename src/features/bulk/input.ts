/**
 * Rows of a bulk file, streamed: CSV with a header row (RFC 4180: quoted fields, embedded commas,
 * quotes and line breaks; each record's cells read by csv-parse) or JSON lines. The format is told
 * by the first character that is not white space: `{` means JSON lines. Rows are numbered from 1 in
 * data order (the CSV header and blank lines do not count), and each knows the file line it starts
 * on. A row that cannot be read is yielded with an error and the rest go on.
 *
 * Input is UTF-8 (a BOM allowed), decoded strictly: a record that is not valid UTF-8 is a failed row
 * naming the line and column of the first bad byte, never a mangled value sent.
 *
 * Hostile input costs linear time and flat memory: records are cut from the bytes as they arrive
 * (each byte looked at once, so a malformed record never shifts the ones after it — csv-parse alone
 * cannot resynchronise after an error), and a line or CSV record over MAX_RECORD_BYTES is not kept
 * at all — its bytes are counted and dropped, and it becomes one failed row.
 */
import { parse as parseCsv, CsvError } from 'csv-parse/sync';
import { UsageError } from '../../core/errors.js';

export type Format = 'csv' | 'jsonl';

export interface SourceRow {
  row: number;
  /** column or member name → value; CSV cells that are empty are left out */
  record?: Record<string, unknown>;
  /** why the row could not be read */
  error?: string;
}

/** A row and the line of the file it starts on (1 is the first line, the CSV header's). */
export type NumberedRow = SourceRow & { line: number };

/** The most a line (JSON lines) or record (CSV) may hold, line end not counted. */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** The columns that carry a link's values; the API's required ones must be in a CSV header. */
const VALUE_COLUMNS = ['campaignId', 'fullName', 'brandId', 'email', 'message', 'locale'] as const;
const REQUIRED_COLUMNS: readonly string[] = ['campaignId', 'fullName'];
export const COLUMNS = [...VALUE_COLUMNS, 'idempotencyKey'] as const;
/** JSON lines may also carry the API's own `customFields` array. */
const JSON_MEMBERS = [...COLUMNS, 'customFields'];
export const FIELD_PREFIX = 'field:';
/** Every name a file may use, as error messages list them. */
const KNOWN = [...VALUE_COLUMNS, `${FIELD_PREFIX}<id or label>`, 'idempotencyKey'].join(', ');

/**
 * Reads rows from a byte stream in whichever format it holds, each with the file line it starts on.
 * `source` names the input in a header's usage error (the file's path, or "standard input").
 */
export async function* readNumberedRows(input: AsyncIterable<Buffer | string>, source = '--from-file'): AsyncGenerator<NumberedRow> {
  const { format, chunks } = await detect(input);
  yield* format === 'jsonl' ? jsonRows(chunks) : csvRows(chunks, source);
}

/** The rows alone, without their file lines. */
export async function* readRows(input: AsyncIterable<Buffer | string>, source = '--from-file'): AsyncGenerator<SourceRow> {
  for await (const { line: _line, ...row } of readNumberedRows(input, source)) yield row;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function firstNonBlank(chunk: Buffer): number | undefined {
  for (let at = 0; at < chunk.length; at++) {
    const byte = chunk[at];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== 0x0a) return byte;
  }
  return undefined;
}

/**
 * Looks at the first non-blank byte (after a UTF-8 BOM, which is dropped), then hands back every
 * chunk, the ones looked at included. Each chunk is scanned once, however much white space leads.
 */
async function detect(input: AsyncIterable<Buffer | string>): Promise<{ format: Format; chunks: AsyncIterable<Buffer> }> {
  const iterator = input[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let first: number | undefined;
  let bomChecked = false;
  while (first === undefined) {
    const next = await iterator.next();
    if (next.done) break;
    let chunk = Buffer.from(next.value);
    if (!bomChecked) {
      // The first three bytes tell whether a BOM leads; a first chunk shorter than that waits for more.
      const start = Buffer.concat([...head, chunk]);
      if (start.length < BOM.length && BOM.subarray(0, start.length).equals(start)) {
        head.push(chunk);
        continue;
      }
      head.length = 0;
      chunk = start.subarray(0, BOM.length).equals(BOM) ? start.subarray(BOM.length) : start;
      bomChecked = true;
    }
    head.push(chunk);
    first = firstNonBlank(chunk);
  }
  async function* chunks(): AsyncGenerator<Buffer> {
    yield* head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield Buffer.from(next.value);
  }
  return { format: first === 0x7b /* { */ ? 'jsonl' : 'csv', chunks: chunks() };
}

/**
 * One line or CSV record and the file line it starts on: its text (line end not included), only its
 * size when over the cap, or where its first byte that is not UTF-8 is.
 */
export type RawRecord = { line: number } & ({ text: string; unclosedQuote?: boolean; tooLong?: undefined; notUtf8?: undefined } | { tooLong: number; notUtf8?: undefined } | { notUtf8: { line: number; column: number }; tooLong?: undefined });

const LF = 0x0a;
const QUOTE = 0x22;
const COMMA = 0x2c;
/** Where a CSV scan is: at the start of a field, in an unquoted one, in a quoted one, or just after a quote inside one. */
const enum Csv {
  FieldStart,
  Unquoted,
  Quoted,
  QuoteInQuoted,
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Cuts a byte stream into lines (`csv: false`) or CSV records (`csv: true`: a line break inside a
 * quoted field does not end the record), in one pass. A record's bytes are kept only while it is
 * within `maxBytes`; past that they are counted and dropped, so memory stays flat.
 */
export async function* splitRecords(chunks: AsyncIterable<Buffer>, csv: boolean, maxBytes = MAX_RECORD_BYTES): AsyncGenerator<RawRecord> {
  let parts: Buffer[] = [];
  let size = 0;
  let state = Csv.FieldStart;
  /** the file line the cursor is on, and the one the current record started on */
  let line = 1;
  let start = 1;
  const add = (piece: Buffer) => {
    if (size + piece.length <= maxBytes) parts.push(piece);
    else parts = [];
    size += piece.length;
    // A line of JSON lines holds no line break; a CSV record may (inside quotes).
    if (csv) for (let at = piece.indexOf(LF); at >= 0; at = piece.indexOf(LF, at + 1)) line++;
  };
  const take = (): RawRecord => {
    const record = size > maxBytes ? { line: start, tooLong: size } : decode(Buffer.concat(parts, size), start);
    parts = [];
    size = 0;
    start = ++line;
    return record;
  };
  for await (const chunk of chunks) {
    let from = 0;
    if (!csv) {
      for (let end = chunk.indexOf(LF); end >= 0; end = chunk.indexOf(LF, from)) {
        add(chunk.subarray(from, end));
        from = end + 1;
        yield take();
      }
    } else {
      for (let at = 0; at < chunk.length; at++) {
        if (state === Csv.Quoted) {
          const quote = chunk.indexOf(QUOTE, at);
          if (quote < 0) break;
          at = quote;
          state = Csv.QuoteInQuoted;
          continue;
        }
        const byte = chunk[at];
        if (state === Csv.QuoteInQuoted && byte === QUOTE) state = Csv.Quoted;
        else if (byte === LF) {
          add(chunk.subarray(from, at));
          from = at + 1;
          state = Csv.FieldStart;
          yield take();
        } else if (byte === COMMA) state = Csv.FieldStart;
        else state = byte === QUOTE && state === Csv.FieldStart ? Csv.Quoted : Csv.Unquoted;
      }
    }
    if (from < chunk.length) add(chunk.subarray(from));
  }
  if (size > 0) {
    const record = take();
    yield csv && state === Csv.Quoted && 'text' in record ? { ...record, unclosedQuote: true } : record;
  }
}

/** A record's bytes as text, or the line and column (in characters, from 1) of the first byte that is not UTF-8. */
function decode(bytes: Buffer, line: number): RawRecord {
  try {
    return { line, text: strictUtf8.decode(bytes) };
  } catch {
    return { line, notUtf8: firstBadByte(bytes, line) };
  }
}

/**
 * Where the first byte that is not valid UTF-8 is. Node's lenient decoding puts U+FFFD there; one
 * that the bytes really hold (EF BF BD) is passed over. Every character before it re-encodes to the
 * same bytes, so byte offsets are counted as the text is walked.
 */
function firstBadByte(bytes: Buffer, line: number): { line: number; column: number } {
  const text = bytes.toString('utf8');
  let offset = 0;
  let from = 0;
  for (let at = text.indexOf('\uFFFD'); at >= 0; at = text.indexOf('\uFFFD', at + 1)) {
    offset += Buffer.byteLength(text.slice(from, at));
    from = at;
    if (bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd) continue;
    const before = text.slice(0, at);
    const lineStart = before.lastIndexOf('\n') + 1;
    return { line: line + (before.match(/\n/g)?.length ?? 0), column: [...before.slice(lineStart)].length + 1 };
  }
  return { line, column: 1 };
}

/** The error of a record that is not UTF-8: where, and what to do. */
function notUtf8(where: { line: number; column: number }): string {
  return `line ${where.line}, column ${where.column}: not valid UTF-8 (save the file as UTF-8); not sent`;
}

/** The error of a line or record over the cap: its size and the limit (its content was never kept). */
function tooLong(bytes: number, what: 'line' | 'record'): string {
  return `${what} of ${bytes} bytes is over the limit of ${MAX_RECORD_BYTES} bytes (1 MiB) per ${what}; not sent`;
}

async function* jsonRows(chunks: AsyncIterable<Buffer>): AsyncGenerator<NumberedRow> {
  let row = 0;
  for await (const raw of splitRecords(chunks, false)) {
    const { line } = raw;
    if (raw.notUtf8 !== undefined || raw.tooLong !== undefined) {
      yield { row: ++row, line, error: raw.notUtf8 ? notUtf8(raw.notUtf8) : tooLong(raw.tooLong!, 'line') };
      continue;
    }
    const text = raw.text.endsWith('\r') ? raw.text.slice(0, -1) : raw.text;
    if (text.trim() === '') continue;
    yield { row: ++row, line, ...jsonRecord(text) };
  }
}

function jsonRecord(line: string): Omit<SourceRow, 'row'> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { error: `not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'not a JSON object' };
  const record: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const [name, member] of Object.entries(value)) {
    const canonical = canonicalName(name, JSON_MEMBERS);
    if (canonical === undefined) unknown.push(name);
    else Object.defineProperty(record, canonical, { value: member, enumerable: true, writable: true, configurable: true });
  }
  return unknown.length > 0 ? { error: `unknown member${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (known: ${KNOWN}, customFields)` } : { record };
}

async function* csvRows(chunks: AsyncIterable<Buffer>, source: string): AsyncGenerator<NumberedRow> {
  let header: string[] | undefined;
  let row = 0;
  for await (const raw of splitRecords(chunks, true)) {
    const { line } = raw;
    const cells = !('text' in raw) ? unreadable(raw) : raw.text === '' || raw.text === '\r' ? undefined : csvCells(raw.text, raw.unclosedQuote);
    if (cells === undefined) continue;
    if (!Array.isArray(cells)) {
      if (header === undefined) throw new UsageError(`${source}: the header row cannot be read: ${cells.error}`);
      yield { row: ++row, line, error: cells.error };
    } else if (header === undefined) header = checkHeader(cells, source);
    else yield { row: ++row, line, ...csvRecord(header, cells) };
  }
}

/** A record that cannot be read as text: its error. */
function unreadable(raw: RawRecord): { error: string } {
  return { error: raw.notUtf8 !== undefined ? notUtf8(raw.notUtf8) : tooLong(raw.tooLong ?? 0, 'record') };
}

/**
 * The cells of one CSV record (RFC 4180: a quoted field may hold commas, line breaks and doubled
 * quotes), without its line end, read by csv-parse. splitRecords already found where the record
 * ends, so a record that breaks the quoting rules is that row's error, and the next row is read as
 * usual.
 */
export function csvCells(text: string, unclosedQuote = false): string[] | { error: string } {
  const bad = (why: string) => ({ error: `CSV cannot be read: ${why}` });
  if (unclosedQuote) return bad('a quoted field is not closed before the end of the input');
  // The line end was left on the record; a CR before it is part of the line end (CRLF files).
  const record = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (record === '') return [''];
  try {
    const records = parseCsv(record, { record_delimiter: ['\r\n', '\n'], relax_column_count: true }) as string[][];
    return records.length === 1 ? records[0] : bad('a line break outside quotes');
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    return bad(csvProblem(error));
  }
}

/** csv-parse's error in the words of a row's error, naming the field (1 is the first). */
function csvProblem(error: CsvError): string {
  const field = (error as CsvError & { column?: number }).column;
  const at = typeof field === 'number' ? `field ${field + 1}: ` : '';
  if (error.code === 'INVALID_OPENING_QUOTE') return `${at}a quote inside an unquoted field (quote the whole field and double the quote)`;
  if (error.code === 'CSV_INVALID_CLOSING_QUOTE') return `${at}text after the closing quote`;
  if (error.code === 'CSV_QUOTE_NOT_CLOSED') return 'a quoted field is not closed';
  return error.message;
}

function csvRecord(header: string[], cells: string[]): Omit<SourceRow, 'row'> {
  if (cells.length !== header.length) return { error: `has ${cells.length} cells, the header has ${header.length}` };
  const record: Record<string, unknown> = {};
  header.forEach((name, index) => {
    if (cells[index] !== '') Object.defineProperty(record, name, { value: cells[index], enumerable: true, writable: true, configurable: true });
  });
  return { record };
}

/** Column names, canonical spelling; an unknown, repeated or missing column is a usage error before any request. */
function checkHeader(cells: string[], source: string): string[] {
  const names = cells.map((cell) => {
    const canonical = canonicalName(cell.trim(), COLUMNS);
    if (canonical === undefined) throw new UsageError(`${source}: unknown column "${cell}" (known: ${KNOWN})`);
    return canonical;
  });
  const seen = new Set<string>();
  const repeated = names.find((name) => seen.size === seen.add(name).size);
  if (repeated !== undefined) throw new UsageError(`${source}: column "${repeated}" appears more than once`);
  const missing = REQUIRED_COLUMNS.filter((name) => !seen.has(name));
  if (missing.length > 0) throw new UsageError(`${source}: missing column${missing.length > 1 ? 's' : ''} ${missing.map((name) => `"${name}"`).join(', ')} (known: ${KNOWN})`);
  return names;
}

/** A known name in its canonical spelling (case-insensitive), `field:<id or label>` as written, else undefined. */
function canonicalName(name: string, known: readonly string[]): string | undefined {
  if (name.toLowerCase().startsWith(FIELD_PREFIX) && name.length > FIELD_PREFIX.length) return `${FIELD_PREFIX}${name.slice(FIELD_PREFIX.length).trim()}`;
  return known.find((candidate) => candidate.toLowerCase() === name.toLowerCase());
}
