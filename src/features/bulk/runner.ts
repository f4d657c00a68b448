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
import { isOutputClosed, onAbort, stopReason } from '../../core/abort.js';
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
  const concurrency = readConcurrency(ctx, opts.concurrency);
  const input = await openInput(ctx, opts.fromFile);
  const client = await ctx.client();
  const progress = ctx.io.showProgress() ? new Progress(ctx.io, input.total, (remaining) => client.pacer.leastWaitMs(remaining)) : undefined;
  // One note per replayed or retried row would flood stderr on a large file; the summary counts them.
  const shown = client.eventSink;
  client.setOnEvent((event) => {
    if (event.type !== 'retry' && event.type !== 'replayed') shown?.(event);
  });
  const run = new BulkRun(ctx, client);
  const started = performance.now();
  const stream = input.path === '-' ? ctx.io.streams.stdin : createReadStream(input.path);
  const numbered = counted(readNumberedRows(interruptible(stream, ctx.signal), input.source), (row) => (run.read = row));
  const rows = prepare(numbered, customFieldsOnce(client, run.stop.signal));
  let finished = false;
  progress?.start();
  try {
    finished = await run.schedule(rows, concurrency, progress);
  } finally {
    progress?.stop();
    await run.end(input, started, finished);
  }
  return run.exitCode(input.source);
}

/** --concurrency, checked; --dry-run prints the requests in file order: one at a time. */
function readConcurrency(ctx: Context, value: string | undefined): number {
  const concurrency = ctx.options.dryRun ? 1 : (validate.positiveInt(value, '--concurrency') ?? DEFAULT_CONCURRENCY);
  if (concurrency > MAX_CONCURRENCY) throw new UsageError(`--concurrency: at most ${MAX_CONCURRENCY}, got ${concurrency}`);
  return concurrency;
}

/** Where rows come from: a file or `-` (standard input). */
interface Input {
  path: string;
  /** how messages name it */
  source: string;
  /** a regular file, which can be read twice (counted, then sent) */
  countable: boolean;
  /** rows in the file, counted when a progress bar shows */
  total: number | undefined;
}

async function openInput(ctx: Context, path: string): Promise<Input> {
  const file = path === '-' ? undefined : await inputFile(path);
  // The total (for the ETA) needs a first pass over the file; a pipe or FIFO can be read only once.
  const countable = file?.isFile() ?? false;
  const source = path === '-' ? 'standard input' : path;
  const total = ctx.io.showProgress() && countable ? await countRows(path) : undefined;
  return { path, source, countable, total };
}

/** One run over the rows: what stops it, what was tried and read, and the report of answers. */
class BulkRun {
  /** A refused key (or Ctrl-C) stops every row: rows in flight are abandoned and no new one is sent. */
  readonly stop = new AbortController();
  /** A closed output only stops new rows: the rows already sent finish and are counted. */
  private outputClosed = false;
  private fatal: SvcError | undefined;
  /** rows answered (counted as each finishes, also when its line could not be written) */
  private readonly report = new Report();
  /** rows handed to a worker (sent, or judged unreadable); the rest were not tried */
  private tried = 0;
  /** the highest row number read from the input so far */
  read = 0;

  /** stops listening for Ctrl-C (core/abort.ts: one listener per signal) */
  private readonly releaseInterrupt: () => void;

  constructor(
    private readonly ctx: Context,
    private readonly client: ApiClient,
  ) {
    this.releaseInterrupt = onAbort(ctx.signal, this.onInterrupt);
    ctx.io.streams.stdout.on('error', this.onOutputError);
  }

  private readonly onInterrupt = () => {
    if (stopReason(this.ctx.signal) === 'output-closed') this.outputClosed = true;
    else this.stop.abort();
  };

  // `… | head -1`: the reader went away. No new row is sent; the run ends with exit 1, saying how many were not tried.
  // Rows already sent finish and are counted (abandoned, the service may have created them unseen).
  private readonly onOutputError = (error: NodeJS.ErrnoException) => {
    if (isOutputClosed(error)) this.outputClosed = true;
  };

  /** Sends the rows, `concurrency` at a time, writing each result in input order; false when the output closed first. */
  async schedule(rows: AsyncIterable<Row>, concurrency: number, progress: Progress | undefined): Promise<boolean> {
    try {
      for await (const result of mapOrdered(rows, this.sendRow, { concurrency, window: concurrency * WINDOW_PER_WORKER })) {
        await this.write(result);
        progress?.update(this.report.tally.total, this.report.tally.failed);
      }
      return true;
    } catch (error) {
      if (isOutputClosed(error)) this.outputClosed = true;
      // Rows abandoned because of the fatal error fail with "interrupted"; report the cause instead.
      if (!this.outputClosed) throw this.fatal ?? error;
      return false;
    }
  }

  private readonly sendRow = async (row: Row): Promise<RowResult> => {
    // A row whose turn comes after the run was stopped is never sent (nor counted as tried).
    if (this.stop.signal.aborted || this.outputClosed) throw new InterruptedError();
    this.tried++;
    try {
      const result = await send(this.client, row, this.stop.signal);
      this.report.count(result);
      return result;
    } catch (error) {
      if (this.fatal === undefined && error instanceof SvcError && !(error instanceof InterruptedError)) {
        this.fatal = error;
        this.stop.abort();
      }
      throw error;
    }
  };

  /**
   * A row's result on stdout. --dry-run: stdout carries the requests (printed by the client); a row
   * that would fail before any request is told on stderr.
   */
  private async write(result: RowResult): Promise<void> {
    const { ctx } = this;
    if (ctx.options.dryRun) {
      if (!result.ok) ctx.io.info(jsonText(resultLine(result), undefined, ctx.io.stderrIsTTY));
      return;
    }
    await ctx.io.write(`${jsonText(resultLine(result), undefined, ctx.io.stdoutIsTTY)}\n`).catch((error: unknown) => {
      // No new row starts while the rows in flight finish (mapOrdered waits for them).
      if (isOutputClosed(error)) this.outputClosed = true;
      throw error;
    });
  }

  /** Stops listening, then the summary on stderr (with the rows not tried when the output closed). */
  async end(input: Input, started: number, finished: boolean): Promise<void> {
    const { ctx, report } = this;
    this.releaseInterrupt();
    ctx.io.streams.stdout.off('error', this.onOutputError);
    const untried = this.outputClosed ? await notTried(input.countable ? input.path : undefined, this.read, this.tried, input.total) : undefined;
    if (report.tally.total === 0 && !this.outputClosed) return;
    ctx.io.info(
      ctx.options.dryRun && !this.outputClosed
        ? `dry run: ${report.tally.created} requests printed, nothing sent; ${report.tally.failed} of ${report.tally.total} rows would fail before any request`
        : report.summary(performance.now() - started, finished, untried),
    );
    if (!ctx.options.dryRun) tellPerson(ctx, report, input.source);
  }

  exitCode(source: string): number {
    const { tally } = this.report;
    if (this.outputClosed) return ExitCode.refused;
    if (tally.total === 0) throw new UsageError(`--from-file: ${source} holds no rows`);
    // A dry run changes nothing and succeeds (exit 0, as docs/output.md says); rows that would fail are on stderr.
    if (this.ctx.options.dryRun) return ExitCode.ok;
    return tally.failed === 0 ? ExitCode.ok : ExitCode.refused;
  }
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
