/** The shared body of every `ls` verb: validate list flags, page through, render. */
import { pages } from '../api/paginate.js';
import { RESOURCE_OF_PATH, defaultColumns } from '../api/resource-fields.js';
import type { Query } from '../api/client.js';
import type { Context } from '../core/context.js';
import type { Column } from '../core/output.js';
import { UsageError } from '../core/errors.js';
import * as validate from '../core/validate.js';

export interface ListFlags {
  limit?: string;
  after?: string;
  all?: boolean;
}

export async function runList<T>(
  ctx: Context,
  flags: ListFlags,
  spec: {
    path: string;
    query: Query;
    columns: Column<T>[];
    noun: string;
    command: string;
    /** the filter flags as given, repeated in the next-page hint so it continues the same list */
    filters: Record<string, string | undefined>;
  },
): Promise<void> {
  // With --all, the largest page unless told otherwise: fewer round trips for the same items.
  const limit = validate.limit(flags.limit) ?? (flags.all ? 100 : undefined);
  if (flags.after !== undefined && flags.after.trim() === '') throw new UsageError('--after: empty cursor');
  const client = await ctx.client();
  const output = await ctx.output();
  await output.list(pages<T>(client, spec.path, { query: spec.query, limit, after: flags.after, all: flags.all, signal: ctx.signal }), {
    columns: spec.columns,
    csvColumns: RESOURCE_OF_PATH[spec.path] ? defaultColumns(RESOURCE_OF_PATH[spec.path]) : undefined,
    noun: spec.noun,
    nextHint: flags.all
      ? undefined
      : (cursor) => [spec.command, ...Object.entries({ ...spec.filters, '--limit': flags.limit }).flatMap(([flag, value]) => (value === undefined ? [] : [flag, shellQuote(value)])), '--after', cursor].join(' '),
  });
}

function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
