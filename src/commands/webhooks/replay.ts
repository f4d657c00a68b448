/**
 * `svc webhooks replay FILE|DIR... --to URL [--keep-signature]`: sends deliveries saved by
 * `webhooks listen --save-dir` again, to a fixed receiver: the exact body bytes, `Content-Type` and
 * `Svc-Event-Id` as received, and an `Svc-Signature` made afresh with the webhook secret and the
 * current time (a receiver checking the 300 s tolerance takes it), or the saved header as it was with
 * --keep-signature. One delivery at a time, in `receivedAt` order; the receiver's status and the
 * start of its answer are printed for each. Exit 0 when every receiver answered 2xx, else 1.
 *
 * Every file is read and checked before anything is sent: a file that is not a saved delivery is a
 * usage error (exit 2) naming it, and nothing goes out.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import { SideRequestError, SideRequests } from '../../api/side.js';
import type { Context } from '../../app/context.js';
import type { ArgsOf, OptionsOf } from '../../app/verb.js';
import { ExitCode, UsageError } from '../../core/errors.js';
import { deliveryUrl } from '../../core/net.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { textWidth, truncate } from '../../core/width.js';
import { signatureHeader } from '../../core/signature.js';
import { resolveWebhookSecret } from '../../features/webhook-secret.js';
import { examples } from '../declare.js';
import { MAX_BODY_BYTES } from '../../features/webhooks/delivery.js';

/** A saved delivery's file: its body (at most 1 MiB, as listen takes) and, when not UTF-8, the same in base64. */
const MAX_FILE_BYTES = 4 * MAX_BODY_BYTES;
/** How much of each answer is read and shown. */
const ANSWER_BYTES = 64 * 1024;
const ANSWER_SHOWN = 200;

export interface SavedDelivery {
  file: string;
  receivedAt: string;
  body: Buffer;
  contentType: string;
  eventId?: string;
  signature?: string;
}

export interface ReplayResult {
  file: string;
  eventId: string | null;
  receivedAt: string;
  status: number | null;
  ok: boolean;
  /** the start of the receiver's answer */
  body?: string;
  error?: string;
}

export function declare(command: Command) {
  return command
    .argument('<path...>', 'deliveries saved by webhooks listen --save-dir: files, or directories of *.json files')
    .description('send saved deliveries again, byte for byte, signed afresh with the webhook secret and the current time')
    .option('--to <url>', 'the receiver (https://, or http:// to a loopback host)')
    .option('--keep-signature', 'send the saved Svc-Signature header as it was instead of signing afresh')
    .addHelpText(
      'after',
      examples(
        'svc webhooks replay ./deliveries --to http://localhost:3000/webhooks',
        'svc webhooks replay ./deliveries/evt_01.json ./deliveries/evt_02.json --to https://hooks.example.test/svc',
        'svc webhooks replay ./deliveries --to http://localhost:3000/webhooks --keep-signature   # tests your tolerance check',
      ) + '\nOne at a time in receivedAt order; prints each receiver status and the start of its answer. Exit 0 when all answered 2xx, else 1.\n',
    );
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>, [paths]: ArgsOf<typeof declare>): Promise<number> {
  if (opts.to === undefined) throw new UsageError('--to: required: the receiver to send the deliveries to');
  const to = deliveryUrl(opts.to, '--to');
  if (paths.length === 0) throw new UsageError('FILE|DIR: at least one saved delivery or directory of them is required');
  const deliveries = sortByReceivedAt(await readDeliveries(paths));
  if (deliveries.length === 0) throw new UsageError(`FILE|DIR: no saved deliveries (*.json) in ${paths.join(', ')}`);
  const secret = opts.keepSignature ? undefined : (await resolveWebhookSecret(ctx, { stdinFlag: false })).secret;
  if (opts.keepSignature) {
    const unsigned = deliveries.find((delivery) => delivery.signature === undefined);
    if (unsigned) throw new UsageError(`--keep-signature: ${unsigned.file} has no saved Svc-Signature header`);
  }

  // The service's delivery time-outs: 5 s to connect, 10 s for the answer; only the answer's start is kept.
  const http = new SideRequests({ responseTimeoutMs: 10_000, maxBodyBytes: ANSWER_BYTES, proxy: ctx.proxy() });
  const output = await ctx.output();
  const array = output.format === 'json' ? output.jsonArray() : undefined;
  let failed = 0;
  try {
    for (const delivery of deliveries) {
      const headers: Record<string, string> = {
        'content-type': delivery.contentType,
        ...(delivery.eventId !== undefined ? { 'svc-event-id': delivery.eventId } : {}),
        'svc-signature': secret === undefined ? delivery.signature! : signatureHeader(secret, Math.floor(Date.now() / 1000), delivery.body),
      };
      const result: ReplayResult = { file: delivery.file, eventId: delivery.eventId ?? null, receivedAt: delivery.receivedAt, status: null, ok: false };
      try {
        const response = await http.send(to, { method: 'POST', headers, body: delivery.body, signal: ctx.signal });
        result.status = response.status;
        result.ok = response.status >= 200 && response.status < 300;
        result.body = response.text.length > ANSWER_SHOWN ? `${response.text.slice(0, ANSWER_SHOWN)}…` : response.text;
      } catch (error) {
        if (!(error instanceof SideRequestError)) throw error;
        result.error = error.message;
      }
      if (!result.ok) failed++;
      if (array) await array.items([result]);
      else if (output.format === 'table') await ctx.io.write(`${replayLine(result, output.chalk, ctx.io.stdoutIsTTY ? ctx.io.terminalWidth() : undefined)}\n`);
      else await ctx.io.write(`${output.json(result)}\n`);
    }
  } finally {
    await array?.close();
    await http.close();
  }
  ctx.io.info(`${deliveries.length - failed} of ${deliveries.length} ${deliveries.length === 1 ? 'delivery' : 'deliveries'} answered 2xx by ${terminalSafeLine(to)}`);
  return failed === 0 ? ExitCode.ok : ExitCode.refused;
}

/**
 * One line for a person: ✓/✗, event id, status, the start of the answer (made safe for the terminal).
 * With `width` (a terminal's columns) the answer's start is cut with `…` so the line fits it.
 */
export function replayLine(result: ReplayResult, chalk: { green(text: string): string; red(text: string): string }, width?: number): string {
  const mark = result.ok ? chalk.green('✓') : chalk.red('✗');
  const head = `${terminalSafeLine(result.eventId ?? result.file)}  `;
  let what = terminalSafeLine(result.status === null ? `failed: ${result.error}` : `${result.status}  ${result.body ?? ''}`);
  if (width !== undefined) what = truncate(what, Math.max(1, width - 2 - textWidth(head)));
  return `${mark} ${head}${what}`;
}

/** Stable: deliveries received at the same time keep the order of their files. */
export function sortByReceivedAt(deliveries: SavedDelivery[]): SavedDelivery[] {
  return deliveries
    .map((delivery, index) => ({ delivery, index, at: Date.parse(delivery.receivedAt) }))
    .sort((a, b) => (a.at === b.at ? a.index - b.index : a.at - b.at))
    .map(({ delivery }) => delivery);
}

/** The files named, and the *.json files of each directory named (sorted by name), each parsed and checked. */
async function readDeliveries(paths: string[]): Promise<SavedDelivery[]> {
  const files: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`${path}: ${error.code === 'ENOENT' ? 'no such file or directory' : (error.code ?? error.message)}`);
    });
    if (info.isDirectory()) {
      const names = (await readdir(path)).filter((name) => name.endsWith('.json')).sort();
      files.push(...names.map((name) => join(path, name)));
    } else files.push(path);
  }
  const deliveries: SavedDelivery[] = [];
  for (const file of files) deliveries.push(await readDelivery(file));
  return deliveries;
}

export async function readDelivery(file: string): Promise<SavedDelivery> {
  const refuse = (why: string) => new UsageError(`${terminalSafeLine(file)}: not a delivery saved by webhooks listen --save-dir (${why})`);
  const info = await stat(file);
  if (!info.isFile()) throw refuse('not a file');
  if (info.size > MAX_FILE_BYTES) throw refuse(`over ${MAX_FILE_BYTES / 1024 / 1024} MiB`);
  let record: unknown;
  try {
    record = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw refuse('not JSON');
  }
  const saved = record as { receivedAt?: unknown; headers?: unknown; body?: unknown; bodyBase64?: unknown };
  if (!saved || typeof saved !== 'object' || Array.isArray(saved)) throw refuse('not a JSON object');
  if (typeof saved.receivedAt !== 'string' || Number.isNaN(Date.parse(saved.receivedAt))) throw refuse('no receivedAt time');
  if (typeof saved.body !== 'string') throw refuse('no body text');
  if (!saved.headers || typeof saved.headers !== 'object' || Array.isArray(saved.headers)) throw refuse('no headers');
  const headers = saved.headers as Record<string, unknown>;
  const header = (name: string): string | undefined => {
    const value = headers[name];
    return typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;
  };
  // The bytes as received: the text, or (when they were not UTF-8) the base64 listen kept beside it.
  const body = typeof saved.bodyBase64 === 'string' ? Buffer.from(saved.bodyBase64, 'base64') : Buffer.from(saved.body, 'utf8');
  const contentType = header('content-type') ?? 'application/json';
  // A header value with a line break could not be sent; refused here rather than by the HTTP library.
  for (const [name, value] of [['Content-Type', contentType], ['Svc-Event-Id', header('svc-event-id')], ['Svc-Signature', header('svc-signature')]]) {
    if (value !== undefined && /[\r\n\0]/.test(value)) throw refuse(`its ${name} header holds a line break`);
  }
  return { file, receivedAt: saved.receivedAt, body, contentType, eventId: header('svc-event-id'), signature: header('svc-signature') };
}
