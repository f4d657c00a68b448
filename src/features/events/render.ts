/**
 * How events look. A person gets one line per event, aligned like a live table (time, type, record
 * id, status, and for orders the coin price and reference); a pipe gets each event as received, one
 * JSON line each; `-o json` gets one array; `-o csv` a header and one row per event. `--fields`
 * chooses the fields in every format. Shared by `events tail`, `inspect` and `webhooks listen`.
 *
 * Lines fit the terminal: ids stay whole; time, type and status shrink with …, the time and the
 * type from the front (the time of day and the type's last word are what tell events apart:
 * `…06:18:42.830033Z`, `…link.cancelled`); details take what is left; a narrow terminal gets one
 * space between columns. Widths are measured as the terminal draws them (string-width: wide
 * characters count two). Every value from the feed passes through terminalSafeLine first.
 */
import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import type { SvcEvent } from '../../api/types.js';
import { cellText, valueAt } from '../../core/fields.js';
import { truncate, type CsvWriter, type JsonArrayWriter, type Output } from '../../core/output.js';
import { terminalSafeLine } from '../../core/sanitize.js';

const WIDE_GAP = '  ';
/** Natural widths: an API timestamp, the longest event type, a status. Ids are 36 and never cut. */
const NATURAL = { time: 27, type: 23, status: 10 } as const;
/**
 * Shrinking goes in stages: the time down to its time of day (`…06:18:42.830033Z`), the type down to
 * its last words (`…link.cancelled`, `order.completed`), the status to 7; then all to their minimum.
 */
const STAGES = [
  { time: 17, type: 23, status: 10 },
  { time: 17, type: 15, status: 10 },
  { time: 17, type: 15, status: 7 },
  { time: 10, type: 9, status: 6 },
] as const;
const ID_WIDTH = 36;
/** Room kept for the forwarding result beside each event when the terminal is narrow. */
const NOTE_RESERVE = 24;

export interface RendererOptions {
  /** CSV columns without --fields */
  csvColumns?: readonly string[];
  /** the forwarding result goes beside each event: keep room for it */
  notes?: boolean;
}

export class EventRenderer {
  /** events written so far */
  count = 0;
  private readonly array?: JsonArrayWriter;
  private readonly csv?: CsvWriter;
  private readonly widths: { time: number; type: number; status: number };
  private readonly gap: string;
  /** the terminal's width; Infinity when stdout is not a terminal (a file keeps whole lines) */
  private readonly columns: number;

  constructor(
    private readonly output: Output,
    options: RendererOptions = {},
  ) {
    if (output.format === 'json') this.array = output.jsonArray();
    if (output.format === 'csv') this.csv = output.csv(output.fields ?? options.csvColumns);
    const stdout = output.io.streams.stdout;
    this.columns = output.io.stdoutIsTTY ? (stdout.columns && stdout.columns > 0 ? stdout.columns : 80) : Infinity;
    const reserve = options.notes ? NOTE_RESERVE : 0;
    const natural = NATURAL.time + NATURAL.type + ID_WIDTH + NATURAL.status + 3 * WIDE_GAP.length + (reserve ? reserve + WIDE_GAP.length : 0);
    this.gap = natural <= this.columns ? WIDE_GAP : ' ';
    this.widths = columnWidths(this.columns - ID_WIDTH - 3 * this.gap.length - (reserve ? reserve + this.gap.length : 0));
  }

  /** The column header of a table. */
  async begin(): Promise<void> {
    if (this.output.format !== 'table') return;
    const header = this.output.fields ? this.fieldCells(this.output.fields) : this.cells('TIME', 'TYPE', 'ID', 'STATUS', 'DETAILS');
    await this.output.io.write(`${this.output.chalk.bold(header)}\n`);
  }

  /** One event; `note` (the forwarding result, "duplicate") goes beside it in a table, else to stderr. */
  async event(raw: string, event: SvcEvent, note?: string): Promise<void> {
    const format = this.output.format;
    if (format === 'table') {
      await this.output.io.write(`${this.line(event, note)}\n`);
    } else if (format === 'csv') {
      await this.csv?.items([event]);
    } else if (format === 'jsonl') {
      await this.output.io.write(`${this.output.fields ? JSON.stringify(this.output.select(event)) : raw}\n`);
    } else {
      await this.array?.items([this.output.fields ? this.output.select(event) : JSON.parse(raw)]);
    }
    if (note && format !== 'table') this.output.io.info(`${terminalSafeLine(event?.id ?? '?')}: ${terminalSafeLine(note)}`);
    this.count++;
  }

  /** Closes the json array (also after Ctrl-C, so the output stays valid JSON); a csv gets its header. */
  async end(): Promise<void> {
    await this.array?.close();
    await this.csv?.end();
  }

  line(event: SvcEvent, note?: string): string {
    if (this.output.fields) return this.fieldCells(this.output.fields.map((path) => cellText(valueAt(event, path))));
    const { chalk } = this.output;
    const data = (event?.data ?? {}) as Record<string, unknown>;
    // An event without a readable type is still shown, so its line is never blank.
    const type = text(event?.type) || '(no type)';
    const paint = type.startsWith('order.') ? chalk.magenta : type.startsWith('personal_link.') ? chalk.cyan : chalk.yellow;
    // A note may come coloured: its colour is dropped, so cutting it never splits an escape sequence.
    const rest = [note === undefined ? '' : stripVTControlCharacters(note), details(type, data)].filter(Boolean).join(WIDE_GAP);
    return this.cells(text(event?.occurredAt), type, text(data.id), text(data.status), rest, paint);
  }

  /** Time, type, id, status and the rest, each made safe, fitted and padded to its column. */
  private cells(time: string, type: string, id: string, status: string, rest: string, paint: (text: string) => string = (value) => value): string {
    const safeId = terminalSafeLine(id);
    const head = [
      pad(fitFromFront(terminalSafeLine(time), this.widths.time), this.widths.time),
      paint(pad(fitFromFront(terminalSafeLine(type), this.widths.type), this.widths.type)),
      pad(safeId, Math.max(ID_WIDTH, stringWidth(safeId))),
      pad(fit(terminalSafeLine(status), this.widths.status), this.widths.status),
    ].join(this.gap);
    const room = this.columns - stringWidth(head) - this.gap.length;
    const tail = room > 0 ? fit(terminalSafeLine(rest), room) : '';
    return (tail ? `${head}${this.gap}${tail}` : head).trimEnd();
  }

  /** --fields in a table: one column per field; id fields whole, the others share what is left. */
  private fieldCells(values: readonly string[]): string {
    const fields = this.output.fields ?? [];
    const safe = values.map((value) => terminalSafeLine(value));
    const isId = fields.map((path) => /(^|\.)id$|Id$/.test(path));
    const fixed = safe.reduce((sum, value, index) => sum + (isId[index] ? Math.max(ID_WIDTH, stringWidth(value)) : 0), 0);
    const flexible = isId.filter((id) => !id).length;
    const share = flexible === 0 ? 0 : Math.max(4, Math.floor((this.columns - fixed - WIDE_GAP.length * (fields.length - 1)) / flexible));
    return safe
      .map((value, index) => (isId[index] ? pad(value, Math.max(ID_WIDTH, stringWidth(value))) : pad(fit(value, share), Number.isFinite(share) ? share : 24)))
      .join(WIDE_GAP)
      .trimEnd();
  }
}

/**
 * Widths of time, type and status within `budget`: shrunk stage by stage (see STAGES), within a
 * stage the widest first, never below the last stage's minimum.
 */
export function columnWidths(budget: number): { time: number; type: number; status: number } {
  const widths = { ...NATURAL } as { time: number; type: number; status: number };
  if (!Number.isFinite(budget)) return widths;
  const keys = ['time', 'type', 'status'] as const;
  let excess = keys.reduce((sum, key) => sum + widths[key], 0) - budget;
  for (const floor of STAGES) {
    while (excess > 0) {
      const shrinkable = keys.filter((key) => widths[key] > floor[key]);
      if (shrinkable.length === 0) break;
      const widest = shrinkable.reduce((a, b) => (widths[b] > widths[a] ? b : a));
      widths[widest]--;
      excess--;
    }
  }
  return widths;
}

const segmenter = new Intl.Segmenter();

/** The text cut to `width` terminal columns, ending in … when cut (the output layer's cut; nothing at 0). */
export function fit(value: string, width: number): string {
  return width <= 0 ? '' : truncate(value, width);
}

/** The text cut to `width` from the front (`…06:18:42.830033Z`), so its end stays readable. */
export function fitFromFront(value: string, width: number): string {
  if (stringWidth(value) <= width) return value;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  for (const segment of [...segmenter.segment(value)].map(({ segment }) => segment).reverse()) {
    const w = stringWidth(segment);
    if (used + w > width - 1) break;
    out = segment + out;
    used += w;
  }
  return `…${out}`;
}

function pad(value: string, width: number): string {
  return value + ' '.repeat(Math.max(0, width - stringWidth(value)));
}

function details(type: string, data: Record<string, unknown>): string {
  if (!type.startsWith('order.')) return '';
  const currency = (data.currency ?? {}) as { symbol?: unknown; name?: unknown };
  const price = [text(data.coinPrice), text(currency.symbol) || text(currency.name)].filter(Boolean).join(' ');
  return [price, text(data.reference)].filter(Boolean).join('  ');
}

function text(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}
