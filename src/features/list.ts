/** The shared body of every `ls` verb: validate list flags, page through, render. */
import { pagesOf, type ListOperation, type Page, type PageQuery } from '../api/paginate.js';
import { RESOURCE_OF_PATH, defaultColumns } from '../api/resource-fields.js';
import { API_LIMITS } from '../api/types.js';
import type { Context, GivenGlobal } from '../app/context.js';
import type { Column } from '../core/output.js';
import { UsageError } from '../core/errors.js';
import * as validate from '../api/checks.js';
import { namesFor, type Names } from '../app/names.js';

export interface ListFlags {
  limit?: string;
  after?: string;
  all?: boolean;
}

export async function runList<Q extends PageQuery, T>(
  ctx: Context,
  flags: ListFlags,
  spec: {
    list: ListOperation<Q, T>;
    query: Omit<Q, keyof PageQuery>;
    /** the table's columns; a function gets the names of brands, campaigns and fields (read only for a table) */
    columns: Column<T>[] | ((names: Names) => Column<T>[]);
    /** `campaigns`: the columns show campaign names too (GET /campaigns is read besides GET /me) */
    names?: 'campaigns';
    noun: string;
    command: string;
    /** the filter flags as given, repeated in the next-page hint so it continues the same list */
    filters: Record<string, string | readonly string[] | undefined>;
    /**
     * Keeps only the items it accepts (a filter the API does not have): pages of 100 are read until
     * `--limit` items (25 by default) were kept, or to the end with --all; the hint continues after
     * the last page read, so no match is skipped.
     */
    keep?: (item: T) => boolean;
  },
): Promise<void> {
  // With --all, the largest page unless told otherwise: fewer round trips for the same items.
  const limit = validate.limit(flags.limit) ?? (flags.all ? API_LIMITS.pageSizeMax : undefined);
  if (flags.after !== undefined && flags.after.trim() === '') throw new UsageError('--after: empty cursor');
  const client = await ctx.client();
  const output = await ctx.output();
  // Names are read only for a person's table: JSON, JSON lines and CSV make no request for them.
  const columns = typeof spec.columns === 'function' ? (ctx.format === 'table' && !ctx.options.fields ? spec.columns(await namesFor(client, ctx.signal, { campaigns: spec.names === 'campaigns' })) : []) : spec.columns;
  const pages = spec.keep
    ? kept(pagesOf(client, spec.list, { query: spec.query, limit: API_LIMITS.pageSizeMax, after: flags.after, all: true, signal: ctx.signal }), spec.keep, flags.all ? undefined : (limit ?? API_LIMITS.pageSizeDefault))
    : pagesOf(client, spec.list, { query: spec.query, limit, after: flags.after, all: flags.all, signal: ctx.signal });
  await output.list(pages, {
    columns,
    csvColumns: RESOURCE_OF_PATH[spec.list.path] ? defaultColumns(RESOURCE_OF_PATH[spec.list.path]) : undefined,
    noun: spec.noun,
    nextHint: flags.all ? undefined : (cursor) => nextPageCommand(spec.command, ctx.givenGlobals, { ...spec.filters, '--fields': ctx.options.fields?.join(','), '--limit': flags.limit, '--after': cursor }),
  });
}

/** Pages with only the items `keep` accepts, ending after the page on which `wanted` were kept. */
async function* kept<T>(pages: AsyncIterable<Page<T>>, keep: (item: T) => boolean, wanted: number | undefined): AsyncGenerator<Page<T>> {
  let count = 0;
  for await (const page of pages) {
    const items = page.items.filter(keep);
    count += items.length;
    yield { items, nextCursor: page.nextCursor };
    if (wanted !== undefined && count >= wanted) return;
  }
}

/**
 * The command that continues a listing: `svc`, every global option that was given, the command, its
 * flags and the cursor, each value quoted for a POSIX shell. The cursor is the server's data:
 * pasted into a shell, the line runs svc with these arguments and nothing else.
 */
export function nextPageCommand(command: string, globals: readonly GivenGlobal[], flags: Record<string, string | readonly string[] | undefined>): string {
  const [program, ...verb] = command.split(' ');
  const globalWords = globals.flatMap(({ flag, value }) => (typeof value === 'string' ? [flagWithValue(flag, value)] : value || flag.startsWith('--no-') ? [flag] : []));
  const flagWords = Object.entries(flags).flatMap(([flag, value]) => (value === undefined ? [] : typeof value === 'string' ? [flagWithValue(flag, value)] : value.map((one) => flagWithValue(flag, one))));
  return [program, ...globalWords, ...verb, ...flagWords].join(' ');
}

/** `--flag value`, or `--flag=value` when the value starts with a dash and could be read as a flag. */
function flagWithValue(flag: string, value: string): string {
  return value.startsWith('-') ? `${flag}=${shellQuote(value)}` : `${flag} ${shellQuote(value)}`;
}

/**
 * One shell word that stands for exactly `value`: bare when it holds only safe characters, else in
 * single quotes (nothing is special inside them; a quote itself is closed, escaped and reopened), or,
 * when it holds characters a terminal would act on, ANSI-C quoting ($'…' with escapes), so the hint
 * shown is both harmless and exact.
 */
export function shellQuote(value: string): string {
  if (/^[\w@%+=:,./-]+$/.test(value)) return value;
  if (/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(value)) {
    return `$'${value.replace(/[\\'\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, ansiC)}'`;
  }
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** One character inside $'…': its UTF-8 bytes as \xHH escapes, which bash, zsh and ksh read the same in any locale. */
function ansiC(char: string): string {
  if (char === '\\' || char === "'") return `\\${char}`;
  return [...Buffer.from(char, 'utf8')].map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('');
}
