import { ApiClient } from '../api/client.js';
import { pages } from '../api/paginate.js';
import type { Context } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { readFileOrStdin } from '../core/stdin.js';

interface Options {
  data?: string;
  paginate?: boolean;
  idempotencyKey?: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export async function run(ctx: Context, opts: Options, [rawMethod, path]: string[]): Promise<void> {
  const method = rawMethod.toUpperCase();
  if (!METHODS.includes(method)) throw new UsageError(`METHOD: must be one of ${METHODS.join(', ')}, got ${rawMethod}`);
  if (!path.startsWith('/') || path.startsWith('//')) {
    throw new UsageError(`PATH: must be a path relative to the base URL, such as /me (got ${path})`);
  }
  if (opts.paginate && method !== 'GET') throw new UsageError('--paginate: only with GET');
  if (opts.data !== undefined && (method === 'GET' || method === 'DELETE')) throw new UsageError(`--data: a ${method} has no body; put parameters in PATH's query`);
  if (/^\/v1(\/|$)/.test(path)) throw new UsageError(`PATH: the base URL already ends in /v1; use ${path.slice(3) || '/'}`);
  const body = opts.data === undefined ? undefined : await readBody(ctx, opts.data);
  const client = await ctx.client();
  // `..` or its encodings would leave the API's base path while still carrying the key.
  if (!client.url(path).startsWith(`${client.baseUrl}/`)) throw new UsageError(`PATH: must stay under the base URL ${client.baseUrl} (got ${path})`);
  const output = await ctx.output();
  const pretty = ctx.format !== 'jsonl';

  if (opts.paginate) {
    const [pathOnly, search = ''] = path.split('?', 2);
    const query = Object.fromEntries(new URLSearchParams(search));
    const { after, ...rest } = query;
    // Raw output stays raw: items exactly as the API sent them, one per line (or one array with -o json);
    // a terminal gets the same lines, with the characters it would act on escaped.
    const source = pages<unknown>(client, pathOnly, { query: rest, after, all: true, signal: ctx.signal });
    if (ctx.format === 'table') {
      for await (const page of source) for (const item of page.items) await ctx.io.write(`${output.json(item)}\n`);
      return;
    }
    await output.list(source, { noun: 'items', columns: [] });
    return;
  }

  const idempotencyKey = method === 'POST' ? (opts.idempotencyKey ?? ApiClient.newIdempotencyKey()) : opts.idempotencyKey;
  const response = await client.request(method, path, { body, idempotencyKey, signal: ctx.signal });
  if (response.body === null || response.body === undefined) return;
  await ctx.io.write(`${output.json(response.body, pretty ? 2 : undefined)}\n`);
}

/** --data takes JSON text, @file or @- (stdin); it must parse, so a typo fails before any request. */
async function readBody(ctx: Context, data: string): Promise<string> {
  const text = data.startsWith('@') ? (await readFileOrStdin(data.slice(1), ctx.io.streams.stdin, '--data')).toString('utf8') : data;
  try {
    JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--data: not valid JSON (${(error as Error).message})`);
  }
  return text;
}
