/**
 * `svc links create --from-file FILE|-`: one link per row, sent concurrently, paced by the client's
 * pacer (so --rate holds and a 429 pauses every worker), each row reported once on stdout in input
 * order as soon as it is next: `{"row": n, "ok": true, "link": {...}}` or
 * `{"row": n, "ok": false, "error": {problem}}`. Exit 0 only when every row succeeded, else 1.
 */
import { constants, createReadStream, type Stats } from 'node:fs';
import { createPersonalLink, getMe } from '../../api/resources.js';
import { access, stat } from 'node:fs/promises';
import type { ApiClient } from '../../api/client.js';
import type { TenantCustomField } from '../../api/types.js';
import type { Context } from '../../app/context.js';
import { isOutputClosed, stopReason } from '../../core/abort.js';
import { ExitCode, InterruptedError, SvcError, UsageError, isTransient } from '../../core/errors.js';
import { fileError, interruptible } from '../../core/stdin.js';
import * as validate from '../../core/validate.js';
import { mapOrdered } from './ordered.js';
import { Progress } from './progress.js';
import { Report, type RowResult } from './report.js';
import { RowKeys, prepareRow, invalidRow, type PreparedRow } from './rows.js';
import { FIELD_PREFIX, readNumberedRows, readRows, type NumberedRow } from './input.js';
import { jsonText } from '../../core/sanitize.js';

const DEFAULT_CONCURRENCY = 8;
/** The client's agent keeps 64 connections; more in flight would only queue. */
const MAX_CONCURRENCY = 64;
/** Rows read ahead of the oldest unfinished one, per request in flight: keeps workers busy behind a slow row. */
const WINDOW_PER_WORKER = 32;
/**
 * Whole extra attempts (each with the client's own retries) for a row still failing transiently,
 * with the same key, so heavy fault rates rarely cost a row and never a duplicate.
 */
const EXTRA_ROUNDS = 2;

/** A prepared row, the file line it starts on, and whether its key is the file's own. */
type Row = PreparedRow & { line: number; ownKey: boolean };

/** What bulk reads of `links create`'s flags (the single-link flags were refused by the verb). */
export interface BulkOptions {
  fromFile: string;
  concurrency?: string;
}

export async function runBulk(ctx: Context, opts: BulkOptions): Promise<number> {
  // --dry-run prints the requests in file order: one at a time.
  const concurrency = ctx.options.dryRun ? 1 : (validate.positiveInt(opts.concurrency, '--concurrency') ?? DEFAULT_CONCURRENCY);
  if (concurrency > MAX_CONCURRENCY) throw new UsageError(`--concurrency: at most ${MAX_CONCURRENCY}, got ${concurrency}`);
  const path = opts.fromFile;
  const file = path === '-' ? undefined : await inputFile(path);

  // The total (for the ETA) needs a first pass over the file; a pipe or FIFO can be read only once.
  const countable = file?.isFile() ?? false;
  const source = path === '-' ? 'standard input' : path;
  const total = ctx.io.showProgress() && countable ? await countRows(path) : undefined;
  const client = await ctx.client();
  const progress = ctx.io.showProgress() ? new Progress(ctx.io, total, (remaining) => client.pacer.leastWaitMs(remaining)) : undefined;
  // One note per replayed or retried row would flood stderr on a large file; the summary counts them.
  const shown = client.eventSink;
  client.setOnEvent((event) => {
    if (event.type !== 'retry' && event.type !== 'replayed') shown?.(event);
  });
  // A refused key (or Ctrl-C) stops every row: rows in flight are abandoned and no new one is sent.
  const stop = new AbortController();
  let outputClosed = false;
  // A closed output only stops new rows: see outputClosed.
  const onInterrupt = () => {
    if (stopReason(ctx.signal) === 'output-closed') outputClosed = true;
    else stop.abort();
  };
  ctx.signal.addEventListener('abort', onInterrupt, { once: true });
  let fatal: SvcError | undefined;
  // `… | head -1`: the reader went away. No new row is sent; the run ends with exit 1, saying how many were not tried.
  // Rows already sent finish and are counted (abandoned, the service may have created them unseen).
  const onOutputError = (error: NodeJS.ErrnoException) => {
    if (isOutputClosed(error)) outputClosed = true;
  };
  ctx.io.streams.stdout.on('error', onOutputError);
  /** rows answered (counted as each finishes, also when its line could not be written) */
  const report = new Report();
  const { tally } = report;
  /** rows handed to a worker (sent, or judged unreadable); the rest were not tried */
  let tried = 0;
  /** the highest row number read from the input so far */
  let read = 0;
  const sendRow = async (row: Row): Promise<RowResult> => {
    // A row whose turn comes after the run was stopped is never sent (nor counted as tried).
    if (stop.signal.aborted || outputClosed) throw new InterruptedError();
    tried++;
    try {
      const result = await send(client, row, stop.signal);
      report.count(result);
      return result;
    } catch (error) {
      if (fatal === undefined && error instanceof SvcError && !(error instanceof InterruptedError)) {
        fatal = error;
        stop.abort();
      }
      throw error;
    }
  };
  const started = performance.now();
  const rows = prepare(counted(readNumberedRows(interruptible(path === '-' ? ctx.io.streams.stdin : createReadStream(path), ctx.signal), source), (row) => (read = row)), customFieldsOnce(client, stop.signal));
  let finished = false;
  let untried: string | undefined;
  progress?.start();
  try {
    for await (const result of mapOrdered(rows, sendRow, { concurrency, window: concurrency * WINDOW_PER_WORKER })) {
      // --dry-run: stdout carries the requests (printed by the client); a row that would fail before
      // any request is told on stderr.
      if (ctx.options.dryRun) {
        if (!result.ok) ctx.io.info(jsonText(resultLine(result), undefined, ctx.io.stderrIsTTY));
      } else {
        await ctx.io.write(`${jsonText(resultLine(result), undefined, ctx.io.stdoutIsTTY)}\n`).catch((error: unknown) => {
          // No new row starts while the rows in flight finish (mapOrdered waits for them).
          if (isOutputClosed(error)) outputClosed = true;
          throw error;
        });
      }
      progress?.update(tally.total, tally.failed);
    }
    finished = true;
  } catch (error) {
    if (isOutputClosed(error)) outputClosed = true;
    // Rows abandoned because of the fatal error fail with "interrupted"; report the cause instead.
    if (!outputClosed) throw fatal ?? error;
  } finally {
    ctx.signal.removeEventListener('abort', onInterrupt);
    ctx.io.streams.stdout.off('error', onOutputError);
    progress?.stop();
    if (outputClosed) untried = await notTried(countable ? path : undefined, read, tried, total);
    if (tally.total > 0 || outputClosed) {
      ctx.io.info(
        ctx.options.dryRun && !outputClosed
          ? `dry run: ${tally.created} requests printed, nothing sent; ${tally.failed} of ${tally.total} rows would fail before any request`
          : report.summary(performance.now() - started, finished, untried),
      );
      if (!ctx.options.dryRun) tellPerson(ctx, report, source);
    }
  }
  if (outputClosed) return ExitCode.refused;
  if (tally.total === 0) throw new UsageError(`--from-file: ${source} holds no rows`);
  // A dry run changes nothing and succeeds (exit 0, as docs/output.md says); rows that would fail are on stderr.
  if (ctx.options.dryRun) return ExitCode.ok;
  return tally.failed === 0 ? ExitCode.ok : ExitCode.refused;
}

/** The input file's kind, checked before anything is sent: it must be readable and not a directory. */
async function inputFile(path: string): Promise<Stats> {
  try {
    const stats = await stat(path);
    if (stats.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    await access(path, constants.R_OK);
    return stats;
  } catch (error) {
    throw fileError('--from-file', path, error);
  }
}

/** Rows in a file, for the progress bar's total and ETA (a quick first pass; stdin has no total). */
async function countRows(path: string): Promise<number> {
  let total = 0;
  for await (const row of readRows(createReadStream(path), path)) total = row.row;
  return total;
}

/**
 * The account's custom fields, fetched once and only when a row answers one by `field:`. A read still
 * failing transiently gets the rows' extra rounds too: it ends the whole run, not just one row.
 */
function customFieldsOnce(client: ApiClient, signal: AbortSignal): () => Promise<TenantCustomField[]> {
  let fields: Promise<TenantCustomField[]> | undefined;
  const fetchFields = async (): Promise<TenantCustomField[]> => {
    for (let round = 0; ; round++) {
      try {
        return (await getMe(client, { signal })).body.tenant.customFields ?? [];
      } catch (error) {
        if (!isTransient(error) || round >= EXTRA_ROUNDS) throw error;
      }
    }
  };
  return () => (fields ??= fetchFields());
}

/** Source rows → requests with keys, in file order (keys depend on the rows before). */
async function* prepare(rows: AsyncIterable<NumberedRow>, customFields: () => Promise<TenantCustomField[]>): AsyncGenerator<Row> {
  const keys = new RowKeys();
  for await (const { row, line, record, error } of rows) {
    if (record === undefined) {
      yield { ...invalidRow(row, error ?? 'unreadable'), line, ownKey: false };
      continue;
    }
    const answersFields = Object.keys(record).some((name) => name.startsWith(FIELD_PREFIX));
    const ownKey = typeof record.idempotencyKey === 'string' && record.idempotencyKey.trim() !== '';
    yield { ...prepareRow(row, record, answersFields ? await customFields() : [], keys), line, ownKey };
  }
}

/** After the summary: a person at a terminal sees the failed rows by file line; anyone, a re-run that made second links. */
function tellPerson(ctx: Context, report: Report, source: string): void {
  if (ctx.io.stderrIsTTY) for (const line of report.failedRows(source, ctx.io.stderrWidth())) ctx.io.info(line);
  for (const line of report.reRunWarning()) ctx.io.info(line);
}

async function send(client: ApiClient, prepared: Row, signal: AbortSignal): Promise<RowResult> {
  const { row, line } = prepared;
  if ('problem' in prepared) return { row, line, ok: false, error: prepared.problem };
  for (let round = 0; ; round++) {
    try {
      const response = await createPersonalLink(client, prepared.body, { idempotencyKey: prepared.idempotencyKey, signal });
      const doneBefore = response.replayed && round === 0 && response.attempts === 1;
      return { row, line, ok: true, link: response.body, replayed: response.replayed, dryRun: response.dryRun, doneBefore, derivedKey: !prepared.ownKey };
    } catch (error) {
      if (!(error instanceof SvcError) || isFatal(error)) throw error;
      if (isTransient(error) && round < EXTRA_ROUNDS) continue;
      return { row, line, ok: false, error: error.toProblem() };
    }
  }
}

/** Failures no other row would escape: Ctrl-C, and a key that is refused or lacks the scope. */
function isFatal(error: SvcError): boolean {
  return error instanceof InterruptedError || error.exitCode === ExitCode.auth;
}

function resultLine(result: RowResult): object {
  return result.ok ? { row: result.row, ok: true, link: result.link } : { row: result.row, ok: false, error: result.error };
}

/** The input's rows as read, telling `onRow` each row number (rows not tried are counted from it). */
async function* counted(rows: AsyncIterable<NumberedRow>, onRow: (row: number) => void): AsyncGenerator<NumberedRow> {
  for await (const row of rows) {
    onRow(row.row);
    yield row;
  }
}

/**
 * How many rows were never tried, in words: a file is counted to its end (once: `counted` when the
 * progress bar already did); standard input, read only once, is counted as far as it was read.
 */
async function notTried(path: string | undefined, read: number, tried: number, counted?: number): Promise<string> {
  const plural = (n: number) => `${n} ${n === 1 ? 'row' : 'rows'}`;
  if (path === undefined) return `${plural(Math.max(0, read - tried))} read and the rest of standard input`;
  const total = counted ?? (await countRows(path).catch(() => undefined));
  return total === undefined ? `${plural(Math.max(0, read - tried))} read and the rest of the file` : plural(Math.max(0, total - tried));
}
