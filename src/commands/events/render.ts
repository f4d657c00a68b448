/**
 * How events look. A person gets one line per event, aligned like a live table (time, type, record
 * id, status, and for orders the coin price and reference); a pipe gets each event as received, one
 * JSON line each; `-o json` gets one array. Shared by `events tail` and `webhooks listen`.
 */
import type { SvcEvent } from '../../api/types.js';
import type { JsonArrayWriter, Output } from '../../core/output.js';
import { shortId } from '../../core/output.js';

const WIDTH = { time: 27, type: 24, id: 8, status: 10 } as const;

export class EventRenderer {
  /** events written so far */
  count = 0;
  private readonly array?: JsonArrayWriter;

  constructor(private readonly output: Output) {
    if (output.format === 'json') this.array = output.jsonArray();
  }

  /** The column header of a table. */
  async begin(): Promise<void> {
    if (this.output.format === 'table') {
      const header = ['TIME'.padEnd(WIDTH.time), 'TYPE'.padEnd(WIDTH.type), 'ID'.padEnd(WIDTH.id), 'STATUS'.padEnd(WIDTH.status), 'DETAILS'].join('  ');
      await this.output.io.write(`${this.output.chalk.bold(header)}\n`);
    }
  }

  /** One event; `note` (the forwarding result, "duplicate") goes beside it in a table, else to stderr. */
  async event(raw: string, event: SvcEvent, note?: string): Promise<void> {
    const format = this.output.format;
    if (format === 'table') {
      await this.output.io.write(`${this.line(event)}${note ? `  ${note}` : ''}\n`);
    } else if (format === 'jsonl') {
      await this.output.io.write(`${raw}\n`);
    } else {
      await this.array?.items([JSON.parse(raw)]);
    }
    if (note && format !== 'table') this.output.io.info(`${event?.id ?? '?'}: ${note}`);
    this.count++;
  }

  /** Closes the json array; also after Ctrl-C, so the output stays valid JSON. */
  async end(): Promise<void> {
    await this.array?.close();
  }

  line(event: SvcEvent): string {
    const { chalk } = this.output;
    const data = (event?.data ?? {}) as Record<string, unknown>;
    // An event without a readable type is still shown, so its line is never blank.
    const type = text(event?.type) || '(no type)';
    const paint = type.startsWith('order.') ? chalk.magenta : type.startsWith('personal_link.') ? chalk.cyan : chalk.yellow;
    return [
      text(event?.occurredAt).padEnd(WIDTH.time),
      paint(type.padEnd(WIDTH.type)),
      shortId(text(data.id)).padEnd(WIDTH.id),
      text(data.status).padEnd(WIDTH.status),
      details(type, data),
    ]
      .join('  ')
      .trimEnd();
  }
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
