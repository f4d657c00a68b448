/**
 * `svc refunds run` pays each due refund once, in feed order. For each one: run CMD; on exit 0 append
 * the orderId to the ledger and fsync it before the next; on a failure stop (exit 1) with nothing
 * recorded for it. The refund cursor moves only past pages whose refunds are all in the ledger,
 * after the ledger is on disk. One runner per ledger (a lock). The only window for a repeat is a
 * crash between CMD's exit 0 and the ledger's fsync: CMD gets the orderId so it can deduplicate.
 */
import type { ApiClient } from '../../api/client.js';
import type { Context } from '../../app/context.js';
import { ExitCode, FailureError, InterruptedError, UnavailableError } from '../../core/errors.js';
import type { JsonArrayWriter, Output } from '../../core/output.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { isRefusedStartCursor } from '../events/feed.js';
import { execRefund } from './exec.js';
import { reportGap } from './gap.js';
import { Ledger, ledgerPlace, readRefundCursor, readRefundCursorEventAt, refundCursorRefused, writeRefundCursor, type LedgerEntry, type LedgerPlace } from './ledger.js';
import { acquireLedgerLock } from './lock.js';
import { currencyName, unpayable, type Refund } from './refund.js';
import { dueRefunds, type DueElement } from './source.js';

/** A second runner waits this long for the first to finish before it refuses. */
const LOCK_WAIT_MS = 2_000;

/** What the verb's flags ask for, checked. */
export interface RefundRunPlan {
  /** the shell command that pays one refund */
  exec: string;
  follow: boolean;
  intervalMs: number;
  fromStart: boolean;
  /** --ledger, as given */
  ledger: string | undefined;
}

/** Pays what is due as `plan` says; the exit code, or a thrown error. */
export async function runRefunds(ctx: Context, plan: RefundRunPlan): Promise<number | void> {
  const place = await ledgerPlace(ctx, plan.ledger);
  const client = await ctx.client();
  const output = await ctx.output();
  const warn = (line: string) => ctx.io.info(line);
  const lock = await acquireLedgerLock(place.lockPath, {
    waitMs: LOCK_WAIT_MS,
    signal: ctx.signal,
    onWait: (who) => warn(`… another refunds run (${who}) holds the ledger; waiting up to ${LOCK_WAIT_MS / 1000}s`),
  });
  const ledger = new Ledger(place.path, warn);
  const run = new RefundRun(ctx, plan, place, client, ledger, output);
  try {
    await run.all();
  } catch (error) {
    return run.ended(error);
  } finally {
    await run.array?.close().catch(() => undefined);
    await ledger.close();
    await lock.release();
  }
  return run.unknown > 0 ? ExitCode.refused : undefined;
}

/** One run's state: what it paid, the cursor it saved, and what the reconciliation found. */
class RefundRun {
  readonly array: JsonArrayWriter | undefined;
  unknown = 0;
  private paid = 0;
  private after: string | undefined;
  private savedCursor: string | undefined;
  private cursorEventAt: string | undefined;
  private lastEventAt: string | undefined;
  private reconciled = false;
  private readonly seen = new Set<string>();
  private readonly warn = (line: string) => this.ctx.io.info(line);

  constructor(
    private readonly ctx: Context,
    private readonly plan: RefundRunPlan,
    private readonly place: LedgerPlace,
    private readonly client: ApiClient,
    private readonly ledger: Ledger,
    private readonly output: Output,
  ) {
    this.array = output.format === 'json' ? output.jsonArray() : undefined;
  }

  async all(): Promise<void> {
    // Read under the lock: what an earlier runner recorded is seen before anything is paid.
    await this.ledger.refresh();
    // --from-start: the saved cursor is not read (it may belong to another feed); the first page replaces it.
    this.after = this.plan.fromStart ? undefined : await readRefundCursor(this.place, this.warn);
    if (this.plan.fromStart) this.warn('note: --from-start: reading the feed from its oldest event; the ledger still holds, so nothing is paid twice');
    this.savedCursor = this.after;
    this.cursorEventAt = this.after === undefined ? undefined : await readRefundCursorEventAt(this.place);
    this.lastEventAt = this.cursorEventAt;
    const { client, ledger, after, seen } = this;
    const { follow, intervalMs } = this.plan;
    for await (const element of dueRefunds({ client, ledger, after, follow, intervalMs, signal: this.ctx.signal, seen })) await this.take(element);
  }

  /** How a run that threw ends: 130 on Ctrl-C, a refused cursor explained, else the error. */
  ended(error: unknown): number {
    if (error instanceof InterruptedError || (this.ctx.signal.aborted && !(error instanceof FailureError))) {
      this.warn(`interrupted; ${this.paid} ${this.paid === 1 ? 'refund' : 'refunds'} paid and recorded`);
      return ExitCode.interrupted;
    }
    if (isRefusedStartCursor(error)) throw refundCursorRefused(this.ctx, this.place, error, { ledger: this.plan.ledger, exec: this.plan.exec });
    throw error;
  }

  private async take(element: DueElement): Promise<void> {
    if (element.kind === 'status') return this.warn(`… ${terminalSafeLine(element.message)}`);
    if (element.kind === 'page') {
      for (const refund of element.refunds) await this.pay(refund);
      if (element.lastEventAt !== undefined) this.lastEventAt = element.lastEventAt;
    }
    // Every refund up to this cursor is in the ledger, on disk: the cursor may pass them.
    if (element.cursor !== null && element.cursor !== this.savedCursor) {
      await writeRefundCursor(this.place, element.cursor, this.lastEventAt);
      this.savedCursor = element.cursor;
    }
    if (element.kind === 'caught-up') await this.caughtUp();
  }

  private async pay(refund: Refund): Promise<void> {
    await this.ledger.refresh();
    if (this.ledger.has(refund.orderId)) return;
    const problem = unpayable(refund);
    if (problem !== undefined) {
      throw new UnavailableError(
        `event ${terminalSafeLine(refund.eventId ?? '(no id)')} (order.cancelled of ${terminalSafeLine(refund.orderId)}): ${problem}; nothing was paid or recorded for it, and the refund cursor stays before it`,
        'invalid_response',
        undefined,
        this.paidBefore(),
      );
    }
    const outcome = await execRefund(this.plan.exec, refund, this.ctx.env, this.ctx.io.streams.stderr);
    if (!outcome.ok) {
      if (this.ctx.signal.aborted) throw new InterruptedError();
      throw new FailureError(`--exec failed for order ${terminalSafeLine(refund.orderId)} (${outcome.how}); nothing was recorded for it and it stays due`, 'refund_failed', this.paidBefore());
    }
    // CMD paid: record it before anything else, even when Ctrl-C came meanwhile.
    const entry: LedgerEntry = { orderId: refund.orderId, coinPrice: refund.coinPrice, currency: refund.currency, eventId: refund.eventId, refundedAt: new Date().toISOString() };
    await this.ledger.append(entry);
    this.paid++;
    await this.report(entry);
    if (this.ctx.signal.aborted) throw new InterruptedError();
  }

  private paidBefore(): string | undefined {
    return this.paid > 0 ? `${this.paid} ${this.paid === 1 ? 'refund was' : 'refunds were'} paid and recorded before it` : undefined;
  }

  private async caughtUp(): Promise<void> {
    if (!this.reconciled) await this.reconcile();
    if (!this.plan.follow) this.warn(`${this.paid} ${this.paid === 1 ? 'refund' : 'refunds'} paid; ledger ${this.place.path}`);
    else if (this.ctx.io.stderrIsTTY) this.warn(`Caught up (${this.paid} paid so far); reconciling every ${this.plan.intervalMs / 1000}s (Ctrl-C to stop).`);
  }

  /** Once per run, at the first catch-up: the gap check, and the window it found kept in the cursor file. */
  private async reconcile(): Promise<void> {
    this.reconciled = true;
    const { client, ledger, seen, after: cursor, cursorEventAt } = this;
    const gap = await reportGap(this.ctx, { client, ledger, seen, cursor, cursorEventAt });
    this.unknown = gap.unknown.length;
    // The window is told once: what it hid is now in the reconciliation, which every run repeats.
    const { keptFrom } = gap;
    const lastEventAt = this.lastEventAt;
    if (keptFrom !== undefined && this.savedCursor !== undefined && !(lastEventAt !== undefined && Date.parse(lastEventAt) >= Date.parse(keptFrom))) {
      await writeRefundCursor(this.place, this.savedCursor, (this.lastEventAt = keptFrom));
    }
  }

  private async report(entry: LedgerEntry): Promise<void> {
    if (this.output.format === 'jsonl') await this.output.io.write(`${this.output.json(entry)}\n`);
    else if (this.array) await this.array.items([entry]);
    else await this.output.io.write(`refunded ${terminalSafeLine(entry.orderId)}  ${terminalSafeLine(entry.coinPrice ?? '?')} ${terminalSafeLine(currencyName(entry.currency))}\n`);
  }
}
