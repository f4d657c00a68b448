/**
 * How events look. A person gets one line per event, aligned like a live table (time, type, record
 * id, status, and for orders the coin price and reference); a pipe gets each event as received, one
 * JSON line each; `-o json` gets one array; `-o csv` a header and one row per event. `--fields`
 * chooses the fields in every format. Shared by `events tail`, `inspect` and `webhooks listen`.
 *
 * Lines fit the terminal (see eventLayout): the time, the whole type and the status always; the
 * record's id whole where it fits, at 80 columns beside the clock time alone (`14:05:07`, UTC; an
 * order's reference in its place); the date too from 95 columns; the time's six decimals on a wide terminal;
 * details (price, reference, gift, campaign and brand by name) take what is left. Widths are
 * measured as the terminal draws them (string-width: wide characters count two). Every value from
 * the feed passes through terminalSafeLine first.
 */
import { stripVTControlCharacters } from 'node:util';
import { textWidth } from '../../core/width.js';
import type { SvcEvent } from '../../api/types.js';
import { cellText, valueAt } from '../../core/field-paths.js';
import { truncate, type CsvWriter, type JsonArrayWriter, type Output } from '../../core/output.js';
import { escapeJson, terminalSafeLine } from '../../core/sanitize.js';
import { toTheSecond } from '../../core/time.js';
import { FEED_EVENT_TYPES, LINK_STATUSES, ORDER_STATUSES } from '../../api/types.js';
import type { Names } from '../../app/names.js';
import { paintEventGroup, paintStatus } from '../status.js';

const GAP = '  ';
/** The longest event type and status of the description: their columns never cut a known one. */
const TYPE_WIDTH = Math.max(...FEED_EVENT_TYPES.map((type) => type.length));
const STATUS_WIDTH = Math.max(...[...LINK_STATUSES, ...ORDER_STATUSES].map((status) => status.length));
/** A time to the second (`2026-11-21T10:00:00Z`) and the API's whole value (six decimals). */
const SECOND_TIME_WIDTH = 20;
const FULL_TIME_WIDTH = 27;
/** The time of day alone (`14:05:07`): what gives way first, so a record's id stays whole at 80 columns. */
const CLOCK_TIME_WIDTH = 8;
/** The status keeps at least this much beside the clock time and the id (it shrinks with …). */
const CLOCK_STATUS_ROOM = 6;
const ID_WIDTH = 36;
/** Details keep at least this much before the full time takes room from them. */
const DETAILS_ROOM = 22;

export interface EventLayout {
  /** the time with its six decimals */
  fullTime: boolean;
  /** the time of day alone (no date), so that the id fits */
  clock: boolean;
  /** the record's id (an order's reference beside the clock time) in a column of its own */
  id: boolean;
}

/**
 * What a terminal of `columns` shows, in this order of giving way: the whole type and the status
 * always; the record's id whole from 79 columns, beside the time of day alone (an order's
 * reference in the id's place: the name of it a person acts on); the date from 95; the time's
 * fraction once the details keep room beside it. Narrower than 79, the date and time to the second
 * and no id (an order's reference leads its details). The details take what is left.
 */
export function eventLayout(columns: number): EventLayout {
  const base = SECOND_TIME_WIDTH + TYPE_WIDTH + STATUS_WIDTH + 2 * GAP.length;
  const withDate = columns >= base + GAP.length + ID_WIDTH;
  const clock = !withDate && columns >= CLOCK_TIME_WIDTH + TYPE_WIDTH + ID_WIDTH + 3 * GAP.length + CLOCK_STATUS_ROOM;
  const fullTime = withDate && columns >= base + GAP.length + ID_WIDTH + FULL_TIME_WIDTH - SECOND_TIME_WIDTH + GAP.length + DETAILS_ROOM;
  return { fullTime, clock, id: withDate || clock };
}

export interface RendererOptions {
  /** CSV columns without --fields */
  csvColumns?: readonly string[];
  /** the forwarding result goes beside each event: the id gives way to keep room for it */
  notes?: boolean;
}

/** Room kept for the forwarding result beside each event. */
const NOTE_RESERVE = 24 + GAP.length;

export class EventRenderer {
  /** events written so far */
  count = 0;
  private readonly array?: JsonArrayWriter;
  private readonly csv?: CsvWriter;
  private readonly layout: EventLayout;
  /** the terminal's width; Infinity when stdout is not a terminal (a file keeps whole lines) */
  private readonly columns: number;
  /** brand and campaign names for the details (tables only); ids when unknown */
  names?: Names;

  constructor(
    private readonly output: Output,
    options: RendererOptions = {},
  ) {
    if (output.format === 'json') this.array = output.jsonArray();
    if (output.format === 'csv') this.csv = output.csv(output.fields ?? options.csvColumns);
    const stdout = output.io.streams.stdout;
    this.columns = output.io.stdoutIsTTY ? (stdout.columns && stdout.columns > 0 ? stdout.columns : 80) : Infinity;
    this.layout = eventLayout(this.columns - (options.notes ? NOTE_RESERVE : 0));
  }

  /** The column header of a table. */
  async begin(): Promise<void> {
    if (this.output.format !== 'table') return;
    const header = this.output.fields ? this.fieldCells(this.output.fields) : this.cells('Time', 'Type', 'ID', 'Status', 'Details');
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
      // Exactly as received; on a terminal with C1 and bidi controls escaped (the same JSON value).
      const tty = this.output.io.stdoutIsTTY;
      await this.output.io.write(`${this.output.fields ? this.output.json(this.output.select(event)) : tty ? escapeJson(raw, true) : raw}\n`);
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
    const paint = paintEventGroup(chalk, type);
    // A note may come coloured: its colour is dropped, so cutting it never splits an escape sequence.
    // Beside the clock time, an order's reference stands in the id's column (its details leave it out).
    const reference = this.layout.clock && type.startsWith('order.') ? text(data.reference) : '';
    const rest = [note === undefined ? '' : stripVTControlCharacters(note), details(type, data, this.names, !this.layout.id, reference !== '')].filter(Boolean).join(GAP);
    const time = text(event?.occurredAt);
    const shown = this.layout.fullTime ? time : this.layout.clock ? clockTime(time) : toTheSecond(time);
    return this.cells(shown, type, reference || text(data.id), text(data.status), rest, paint, paintStatus(chalk, data.status));
  }

  /**
   * Time, type, id (where it fits) and status, each made safe and padded to its column, then the
   * details in what is left; on a terminal too narrow even for those, the line is cut at its width.
   */
  private cells(
    time: string,
    type: string,
    id: string,
    status: string,
    rest: string,
    paint: (text: string) => string = (value) => value,
    paintState: (text: string) => string = (value) => value,
  ): string {
    const timeWidth = this.layout.fullTime ? FULL_TIME_WIDTH : this.layout.clock ? CLOCK_TIME_WIDTH : SECOND_TIME_WIDTH;
    const cells: [string, number, (text: string) => string][] = [
      [terminalSafeLine(time), timeWidth, (value) => value],
      [terminalSafeLine(type), TYPE_WIDTH, paint],
      ...(this.layout.id ? [[terminalSafeLine(id), ID_WIDTH, (value: string) => value] as [string, number, (text: string) => string]] : []),
      [terminalSafeLine(status), STATUS_WIDTH, paintState],
      [terminalSafeLine(rest), 0, (value) => value],
    ];
    let used = 0;
    const parts: string[] = [];
    for (const [value, width, colour] of cells) {
      const gap = parts.length === 0 ? 0 : GAP.length;
      const room = this.columns - used - gap;
      if (room <= 0 || (value === '' && width === 0)) break;
      const cut = fit(value, room);
      const padded = width === 0 ? cut : pad(cut, Math.min(room, width));
      parts.push(colour(padded));
      used += gap + textWidth(padded);
    }
    return parts.join(GAP).trimEnd();
  }

  /** --fields in a table: one column per field; id fields whole, the others share what is left. */
  private fieldCells(values: readonly string[]): string {
    const fields = this.output.fields ?? [];
    const safe = values.map((value) => terminalSafeLine(value));
    const isId = fields.map((path) => /(^|\.)id$|Id$/.test(path));
    const fixed = safe.reduce((sum, value, index) => sum + (isId[index] ? Math.max(ID_WIDTH, textWidth(value)) : 0), 0);
    const flexible = isId.filter((id) => !id).length;
    const share = flexible === 0 ? 0 : Math.max(4, Math.floor((this.columns - fixed - GAP.length * (fields.length - 1)) / flexible));
    return safe
      .map((value, index) => (isId[index] ? pad(value, Math.max(ID_WIDTH, textWidth(value))) : pad(fit(value, share), Number.isFinite(share) ? share : 24)))
      .join(GAP)
      .trimEnd();
  }
}

/** The text cut to `width` terminal columns, ending in … when cut (the output layer's cut; nothing at 0). */
export function fit(value: string, width: number): string {
  return width <= 0 ? '' : truncate(value, width);
}

function pad(value: string, width: number): string {
  return value + ' '.repeat(Math.max(0, width - textWidth(value)));
}

/**
 * What a person reads beside an event: for an order its price, reference, gift and brand (the
 * reference first on a terminal too narrow for the id); for a link its campaign and brand.
 */
function details(type: string, data: Record<string, unknown>, names: Names | undefined, referenceFirst = false, withoutReference = false): string {
  const brand = names?.brand(data.brandId) ?? text(data.brandId);
  if (type.startsWith('personal_link.')) {
    const campaign = data.campaignId ? (names?.campaign(data.campaignId) ?? text(data.campaignId)) : data.selection === 'CATALOG' ? 'catalog' : '';
    return [campaign, names ? brand : ''].filter(Boolean).join(' · ');
  }
  if (!type.startsWith('order.')) return '';
  const currency = (data.currency ?? {}) as { symbol?: unknown; name?: unknown };
  const price = [text(data.coinPrice), text(currency.symbol) || text(currency.name)].filter(Boolean).join(' ');
  const gift = [text(data.productName), names ? brand : ''].filter(Boolean).join(' · ');
  if (withoutReference) return [price, gift].filter(Boolean).join('  ');
  // Where the order's id has no room, its reference comes first, whole: the one name of the order a person acts on.
  return (referenceFirst ? [text(data.reference), price, gift] : [price, text(data.reference), gift]).filter(Boolean).join('  ');
}

/** `2026-11-24T14:05:07.123456Z` → `14:05:07` (UTC, as the API writes them); any other form to the second as it is. */
function clockTime(time: string): string {
  const match = /^\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d)(\.\d+)?Z$/i.exec(time);
  return match ? match[1] : toTheSecond(time);
}

function text(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}
