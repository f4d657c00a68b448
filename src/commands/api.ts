import { STATUS_CODES } from 'node:http';
import { ApiClient, type ApiResponse } from '../api/client.js';
import { pages } from '../api/paginate.js';
import type { Context } from '../app/context.js';
import type { ArgsOf, OptionsOf } from '../app/verb.js';
import { UsageError } from '../core/errors.js';
import { terminalSafeLine } from '../core/sanitize.js';
import type { Command } from '@commander-js/extra-typings';
import { REQUEST_BODY_LIMIT, readFileOrStdin } from '../core/stdin.js';
import { collect, dryRunOption, examples } from './declare.js';

/** A header name as HTTP defines it (a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers that describe the connection or the message framing: the HTTP core sets them, a caller cannot. */
const CONNECTION_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer', 'proxy-connection']);

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export function declare(command: Command) {
  return command
    .argument('<method>', 'GET, POST, PUT, PATCH or DELETE')
    .argument('<path>', 'path relative to the base URL, e.g. /me')
    .description('make a raw API call with auth, retries, idempotency and error rendering')
    .addHelpText('after', '\nThe API is described in OpenAPI 3.1: openapi/openapi.yaml in the package (dist/openapi.json as JSON),\nand GET {baseUrl}/openapi.json on `svc sandbox` (no key needed).')
    .option('--data <json>', 'request body as JSON, or @file (a regular file, up to 10 MB), or @- for stdin')
    .option('--paginate', 'follow nextCursor and print every item')
    .option('--idempotency-key <key>', 'Idempotency-Key for a POST (default: a fresh UUID)')
    .option('-i, --include', 'print the response status line and headers before the body')
    .option('-H, --header <header>', 'add a request header, "Name: value" (repeatable)', collect)
    .addOption(dryRunOption('with a method other than GET: print the request as a JSON line ({method, url, headers, body}; key redacted) and send nothing'))
    .addHelpText(
      'after',
      examples(
        'svc api GET /me',
        'svc api GET "/personal-links?status=ACTIVE" --paginate',
        'svc api POST /personal-links --data @link.json',
        'svc api POST /personal-links --data @link.json --dry-run',
        'svc api -i GET /me',
        'svc api GET /events -H "Accept-Language: de-DE"',
        "svc api GET /campaigns --jq '.items[] | [.id, .name] | @tsv'",
      ),
    );
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>, [rawMethod, givenPath]: ArgsOf<typeof declare>): Promise<void> {
  const method = rawMethod.toUpperCase();
  // As gh does: `svc api GET me` means /me (a path that already starts with / or names a host is left as it is).
  const path = /^[A-Za-z0-9_.~-]/.test(givenPath) && !/^[a-z][a-z0-9+.-]*:/i.test(givenPath) ? `/${givenPath}` : givenPath;
  if (!METHODS.includes(method)) throw new UsageError(`METHOD: must be one of ${METHODS.join(', ')}, got ${rawMethod}`);
  if (!path.startsWith('/') || path.startsWith('//')) {
    throw new UsageError(`PATH: must be a path relative to the base URL, such as /me (got ${path})`);
  }
  if (opts.paginate && method !== 'GET') throw new UsageError('--paginate: only with GET');
  if (opts.data !== undefined && (method === 'GET' || method === 'DELETE')) throw new UsageError(`--data: a ${method} has no body; put parameters in PATH's query`);
  if (/^\/v1(\/|$)/.test(path)) throw new UsageError(`PATH: the base URL already ends in /v1; use ${path.slice(3) || '/'}`);
  if (opts.include && opts.paginate) throw new UsageError('--include: not with --paginate (every page has its own status and headers)');
  const headers = requestHeaders(opts.header ?? []);
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
  const response = await client.request(method, path, { body, idempotencyKey, signal: ctx.signal, headers });
  // --dry-run: a request other than GET was printed instead of sent.
  if (response.dryRun) return;
  if (opts.include) await ctx.io.write(statusAndHeaders(response, ctx.io.stdoutIsTTY));
  if (response.body === null || response.body === undefined) return;
  await ctx.io.write(`${output.json(response.body, pretty ? 2 : undefined)}\n`);
}

/** --data takes JSON text, @file or @- (stdin); it must parse, so a typo fails before any request. */
async function readBody(ctx: Context, data: string): Promise<string> {
  const text = data.startsWith('@') ? (await readFileOrStdin(data.slice(1), ctx.io.streams.stdin, '--data', ctx.signal, REQUEST_BODY_LIMIT)).toString('utf8') : data;
  try {
    JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--data: not valid JSON (${(error as Error).message})`);
  }
  return text;
}

/**
 * `-H 'Name: value'`, repeatable; a later one of the same name wins. An Authorization header is
 * allowed (it replaces the key's) and, like every request header, never printed. A malformed one is a
 * usage error that does not repeat it: it may hold a token.
 */
function requestHeaders(given: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [index, header] of given.entries()) {
    const colon = header.indexOf(':');
    const which = given.length > 1 ? `-H (#${index + 1})` : '-H';
    if (colon < 0) throw new UsageError(`${which}: expected "Name: value", a header name, a colon and its value`);
    const name = header.slice(0, colon).trim();
    const value = header.slice(colon + 1).trim();
    if (!HEADER_NAME.test(name)) throw new UsageError(`${which}: the name before the colon is not a valid header name`);
    if (/[\0\r\n]/.test(value)) throw new UsageError(`${which}: ${name}: a header value cannot hold a line break or NUL`);
    if (CONNECTION_HEADERS.has(name.toLowerCase())) throw new UsageError(`${which}: ${name} is set by svc's HTTP client and cannot be given`);
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

/** `-i`: the status line and the response headers, as curl -i prints them, then a blank line. On a terminal the server's text is made safe. */
function statusAndHeaders(response: ApiResponse, onTerminal: boolean): string {
  const safe = (text: string) => (onTerminal ? terminalSafeLine(text) : text);
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`.trimEnd()];
  for (const [name, value] of Object.entries(response.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) lines.push(`${safe(name)}: ${safe(one)}`);
  }
  return `${lines.join('\n')}\n\n`;
}
