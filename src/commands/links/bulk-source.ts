/**
 * Rows of a bulk file, streamed: CSV with a header row (RFC 4180 via csv-parse: quoted fields,
 * embedded commas, quotes and line breaks) or JSON lines. The format is told by the first character
 * that is not white space: `{` means JSON lines. Rows are numbered from 1 in data order (the CSV
 * header and blank JSON lines do not count). A row that cannot be read is yielded with an error and
 * the rest go on; a CSV the parser cannot resynchronise after (an unclosed quote) ends there.
 */
import { parse } from 'csv-parse';
import { finished } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { UsageError } from '../../core/errors.js';

export type Format = 'csv' | 'jsonl';

export interface SourceRow {
  row: number;
  /** column or member name → value; CSV cells that are empty are left out */
  record?: Record<string, unknown>;
  /** why the row could not be read */
  error?: string;
}

export const COLUMNS = ['campaignId', 'fullName', 'brandId', 'email', 'message', 'locale', 'idempotencyKey'] as const;
/** JSON lines may also carry the API's own `customFields` array. */
const JSON_MEMBERS = [...COLUMNS, 'customFields'];
export const FIELD_PREFIX = 'field:';

/** Reads rows from a byte stream in whichever format it holds. */
export async function* readRows(input: AsyncIterable<Buffer | string>): AsyncGenerator<SourceRow> {
  const { format, chunks } = await detect(input);
  yield* format === 'jsonl' ? jsonRows(chunks) : csvRows(chunks);
}

/** Looks at the first non-blank character, then hands back every chunk, the ones looked at included. */
async function detect(input: AsyncIterable<Buffer | string>): Promise<{ format: Format; chunks: AsyncIterable<Buffer> }> {
  const iterator = input[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let first: string | undefined;
  while (first === undefined) {
    const next = await iterator.next();
    if (next.done) break;
    head.push(Buffer.from(next.value));
    first = Buffer.concat(head).toString('utf8').replace(/^\uFEFF/, '').trimStart()[0];
  }
  async function* chunks(): AsyncGenerator<Buffer> {
    yield* head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield Buffer.from(next.value);
  }
  return { format: first === '{' ? 'jsonl' : 'csv', chunks: chunks() };
}

async function* jsonRows(chunks: AsyncIterable<Buffer>): AsyncGenerator<SourceRow> {
  let row = 0;
  for await (const line of lines(chunks)) {
    if (line.trim() === '') continue;
    row++;
    yield { row, ...jsonRecord(line) };
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
    else record[canonical] = member;
  }
  return unknown.length > 0 ? { error: `unknown member${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (expected ${JSON_MEMBERS.join(', ')} or field:<id or label>)` } : { record };
}

/** Lines split on \n (a trailing \r dropped), decoding UTF-8 across chunk boundaries. */
async function* lines(chunks: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let first = true;
  for await (const chunk of chunks) {
    rest += decoder.write(chunk);
    if (first) rest = rest.replace(/^\uFEFF/, '');
    first = false;
    const parts = rest.split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts) yield part.replace(/\r$/, '');
  }
  rest += decoder.end();
  if (rest !== '') yield rest.replace(/\r$/, '');
}

async function* csvRows(chunks: AsyncIterable<Buffer>): AsyncGenerator<SourceRow> {
  let header: string[] | undefined;
  let row = 0;
  for await (const cells of csvRecords(chunks)) {
    if (cells instanceof Error) {
      yield { row: row + 1, error: `CSV cannot be read from here on: ${cells.message}` };
      return;
    }
    if (header === undefined) {
      header = checkHeader(cells);
      continue;
    }
    row++;
    yield { row, ...csvRecord(header, cells) };
  }
}

/**
 * csv-parse driven chunk by chunk, so records parsed before a fatal error are still handed out
 * (iterating the stream would throw at once and lose them) and no more than one chunk's records wait.
 * Records come as arrays, so a row with the wrong number of cells is reported, not fatal.
 */
async function* csvRecords(chunks: AsyncIterable<Buffer>): AsyncGenerator<string[] | Error> {
  // Either line end, even mixed in one file (spreadsheets and editors disagree).
  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: true, record_delimiter: ['\r\n', '\n'] });
  const parsed: string[][] = [];
  let failure: Error | undefined;
  parser.on('data', (record: string[]) => parsed.push(record));
  parser.on('error', (error: Error) => (failure ??= error));
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  for await (const chunk of chunks) {
    parser.write(chunk);
    await settle();
    yield* parsed.splice(0);
    if (failure) break;
  }
  if (!failure) {
    parser.end();
    await finished(parser).catch((error: Error) => (failure ??= error));
  }
  yield* parsed.splice(0);
  if (failure) yield failure;
}

function csvRecord(header: string[], cells: string[]): Omit<SourceRow, 'row'> {
  if (cells.length !== header.length) return { error: `has ${cells.length} cells, the header has ${header.length}` };
  const record: Record<string, unknown> = {};
  header.forEach((name, index) => {
    if (cells[index] !== '') record[name] = cells[index];
  });
  return { record };
}

/** Column names, canonical spelling; an unknown or repeated column is a usage error before any request. */
function checkHeader(cells: string[]): string[] {
  const names = cells.map((cell) => {
    const canonical = canonicalName(cell.trim(), COLUMNS);
    if (canonical === undefined) {
      throw new UsageError(`--from-file: unknown column "${cell}" (columns: ${COLUMNS.join(', ')} and ${FIELD_PREFIX}<id or label>)`);
    }
    return canonical;
  });
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) throw new UsageError(`--from-file: column "${repeated}" appears more than once`);
  return names;
}

/** A known name in its canonical spelling (case-insensitive), `field:<id or label>` as written, else undefined. */
function canonicalName(name: string, known: readonly string[]): string | undefined {
  if (name.toLowerCase().startsWith(FIELD_PREFIX) && name.length > FIELD_PREFIX.length) return `${FIELD_PREFIX}${name.slice(FIELD_PREFIX.length).trim()}`;
  return known.find((candidate) => candidate.toLowerCase() === name.toLowerCase());
}
