/**
 * `svc webhooks listen`: a local receiver for deliveries from the sandbox, `events tail
 * --forward-to`, or curl with `webhooks sign`. It reads the raw body, verifies it with the webhook
 * secret as the spec prescribes, prints each event, and answers 200 `{"received":true}` or 400 with
 * the reason. Deliveries are at least once, so repeats are marked by event id (and not printed again
 * to a pipe). Runs until Ctrl-C, then exits 130 like every interrupted command.
 *
 * Each delivery also gets one line on stderr: the time it arrived, its event id and type, and ✓ or
 * ✗ with the verification reason. `--save-dir` keeps every delivery as a JSON file; `--forward-to`
 * relays verified deliveries, byte for byte with their signature headers, to another receiver.
 *
 * A request carrying an `Origin` header comes from a browser (a page trying a cross-site post), never
 * from a webhook sender: it is answered 403 and neither saved nor shown as a delivery. Saved files
 * keep the credentials a sender may carry (Authorization, Proxy-Authorization, Cookie) as
 * `[redacted]`, are created exclusively and never through a link (a link planted there stops the
 * listener, exit 2), and are on disk before the delivery is answered 2xx.
 *
 * Hostile input costs bounded time and memory: a body over 1 MiB is answered 413 without being kept;
 * the signature (one HMAC) is checked before anything else; the diagnosis of a failure (which re-signs
 * the body with known mistakes) runs only for small bodies and within a time budget.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { SvcEvent } from '../../api/types.js';
import { SideRequests } from '../../api/side.js';
import type { ProxySettings } from '../../api/proxy.js';
import { deliveryUrl } from '../../core/net.js';
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import { ExitCode, FailureError, SvcError, UsageError } from '../../core/errors.js';
import { createExclusive, SymlinkRefusedError } from '../../core/safe-file.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { textWidth, truncate } from '../../core/width.js';
import { verifySignature } from '../../core/signature.js';
import { diagnose } from '../../core/signature-diagnose.js';
import { currentProfileSecret, resolveWebhookSecret, type ResolvedSecret } from '../../features/webhook-secret.js';
import { registerWithSandbox } from './register.js';
import * as validate from '../../core/validate.js';
import { EventRenderer } from '../../features/events/render.js';
import type { Command } from '@commander-js/extra-typings';
import { examples } from '../declare.js';

/** Deliveries are small JSON events; anything over 1 MiB is refused (413) before it is kept. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** After a 413, the rest of the body is read and dropped up to this much, then the connection is cut. */
const MAX_DRAINED_BYTES = 16 * 1024 * 1024;
/** A failed signature is diagnosed only for bodies up to this size ... */
const DIAGNOSE_MAX_BYTES = 64 * 1024;
/** ... within this time per delivery ... */
const DIAGNOSE_BUDGET_MS = 50;
/** ... and within this much diagnosis time per second overall, so a stream of forgeries cannot stall good deliveries. */
const DIAGNOSE_BUDGET_PER_SECOND_MS = 200;
/** How many event ids are remembered for duplicate marking (oldest forgotten first). */
const REMEMBERED_IDS = 10_000;
/** Verified deliveries waiting to be forwarded; beyond this, new ones are not forwarded (and said so). */
const MAX_FORWARD_QUEUE = 1_000;

interface Delivery {
  receivedAt: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** the event id from the body, else the Svc-Event-Id header; untrusted */
  id: string;
  type: string;
}

interface Verdict {
  ok: boolean;
  /** the HTTP status answered */
  status: number;
  /** the reason when not ok: malformed_header, no_matching_signature, … */
  error?: string;
  detail?: string;
  duplicate?: boolean;
}

export function declare(command: Command) {
  return command
    .description('run a local receiver that verifies and prints each delivery')
    .option('--port <port>', 'port to listen on (default 4242; 0 picks a free one)')
    .option('--path <path>', 'path to accept deliveries on (default /webhooks)')
    .option('--save-dir <dir>', 'write each delivery (receivedAt, headers, raw body, verdict) to DIR/<event id>.json; a repeated id gets <id>.2.json, never overwritten')
    .option('--forward-to <url>', 'relay verified deliveries unchanged (body and signature headers) to this URL; http:// only to loopback')
    .option('--no-register', "against a local sandbox: leave the key's webhook URL alone (by default it is set to this listener's and put back when it stops)")
    .addHelpText(
      'after',
      examples(
        'svc webhooks listen --port 4242',
        'svc webhooks listen --path /hooks/svc -o jsonl',
        'svc webhooks listen --save-dir ./deliveries --forward-to http://localhost:3000/webhooks',
        'svc --profile sandbox webhooks listen --port 0        # the sandbox now delivers here; its old URL comes back on Ctrl-C',
        'svc --profile sandbox webhooks listen --no-register   # receive only what you send yourself',
      ),
    );
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<number> {
  const port = validate.port(opts.port, 4242);
  const path = opts.path ?? '/webhooks';
  if (!path.startsWith('/')) throw new UsageError(`--path: must start with /, got ${path}`);
  // Refused before anything listens or connects: plain http only to loopback.
  const forwardTo = opts.forwardTo === undefined ? undefined : deliveryUrl(opts.forwardTo, '--forward-to');
  if (opts.saveDir === '') throw new UsageError('--save-dir: must name a directory');
  const verifier = new Verifier(ctx, await resolveWebhookSecret(ctx, { stdinFlag: false }));
  const saveDir = opts.saveDir;
  // Saved deliveries hold players' data: the directory svc creates is private.
  if (saveDir !== undefined) {
    await mkdir(saveDir, { recursive: true, mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`--save-dir: cannot create ${saveDir}: ${error.code ?? error.message}`);
    });
  }
  const output = await ctx.output();
  const renderer = new EventRenderer(output);
  // A person at one terminal sees each delivery once: its line (time, id, type, verdict) on stderr;
  // the event table on stdout is for when stdout goes elsewhere (a file, a pipe gets JSON lines).
  const linesOnly = output.format === 'table' && ctx.io.sharesTerminal();
  const forwarder = forwardTo ? new Relay(forwardTo, ctx.signal, ctx.proxy()) : undefined;
  const receiver = new Receiver({ ctx, path, saveDir, verifier, renderer, linesOnly, forwarder });
  const server = createServer((request, response) => {
    receiver.handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) answer(response, 500, { error: 'internal_error', detail: String(error) });
    });
  });
  const address = await listen(server, port);
  const url = `http://127.0.0.1:${address}${path}`;
  ctx.io.info(`Ready: ${url}`);
  // The table's header before any delivery can be shown (one may arrive while the URL is registered).
  if (!linesOnly) await renderer.begin();
  const restore = opts.register === false ? undefined : await registerWithSandbox(ctx, url);
  if (ctx.io.stderrIsTTY) {
    const extras = [saveDir !== undefined ? `saving each to ${terminalSafeLine(saveDir)}` : '', forwardTo ? `forwarding verified ones to ${forwardTo}` : ''].filter(Boolean);
    ctx.io.info(output.chalk.dim(`Verifying each delivery with the webhook secret${extras.length ? `; ${extras.join('; ')}` : ''}; Ctrl-C to stop.`));
  }
  await receiver.stopped();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await restore?.();
  await receiver.settled();
  await forwarder?.close();
  await renderer.end();
  if (receiver.fatal) throw receiver.fatal;
  return ExitCode.interrupted;
}

/**
 * Checks each delivery's signature with the webhook secret. A secret from the profile is read again
 * when a signature does not match (at most once a second): a sandbox restarted meanwhile saves a new
 * one, and the listener goes on with it instead of refusing every delivery from then on.
 */
class Verifier {
  private secret: string;
  private readonly diagnosis = new Budget(DIAGNOSE_BUDGET_PER_SECOND_MS);
  private readonly seen = new Set<string>();
  private lastReread = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ctx: Context,
    private readonly source: ResolvedSecret,
  ) {
    this.secret = source.secret;
  }

  async judge(delivery: Delivery): Promise<{ verdict: Verdict; event?: SvcEvent }> {
    const header = delivery.headers['svc-signature'];
    if (typeof header !== 'string') return { verdict: reject('missing_signature', 'no Svc-Signature header') };
    // The cheap check first: one HMAC. Only a failure is diagnosed, and only within bounds.
    let verification = this.verify(header, delivery.body);
    if (!verification.valid && verification.reason === 'no_matching_signature' && (await this.reread())) verification = this.verify(header, delivery.body);
    if (!verification.valid) {
      let detail = verification.header.problems.join('; ') || REASON_TEXT[verification.reason!] || verification.reason!;
      if (delivery.body.length <= DIAGNOSE_MAX_BYTES && this.diagnosis.available()) {
        const started = performance.now();
        const [cause] = diagnose({ verification, payload: delivery.body, secret: this.secret, deadline: started + DIAGNOSE_BUDGET_MS });
        this.diagnosis.spend(performance.now() - started);
        if (cause) detail = cause.message;
      }
      return { verdict: reject(verification.reason!, detail) };
    }
    let parsed: SvcEvent;
    try {
      parsed = JSON.parse(delivery.body.toString('utf8')) as SvcEvent;
    } catch {
      return { verdict: reject('invalid_json', 'the body is not JSON') };
    }
    const duplicate = delivery.id !== '' && this.seen.has(delivery.id);
    remember(this.seen, delivery.id);
    return { verdict: { ok: true, status: 200, ...(duplicate ? { duplicate: true } : {}) }, event: parsed };
  }

  private verify(header: string, body: Buffer) {
    return verifySignature({ header, payload: body, secret: this.secret, now: Math.floor(Date.now() / 1000) });
  }

  /** Whether the profile now holds another secret (taken from here on). */
  private async reread(): Promise<boolean> {
    if (!this.source.profile || performance.now() - this.lastReread < 1_000) return false;
    this.lastReread = performance.now();
    const current = await currentProfileSecret(this.ctx, this.source.profile);
    if (current === undefined || current === this.secret) return false;
    this.secret = current;
    this.ctx.io.info(`note: the webhook secret of profile ${terminalSafeLine(this.source.profile)} changed (a restarted sandbox?); verifying with the new one`);
    return true;
  }
}

interface ReceiverParts {
  ctx: Context;
  path: string;
  saveDir: string | undefined;
  verifier: Verifier;
  renderer: EventRenderer;
  linesOnly: boolean;
  forwarder: Relay | undefined;
}

/** Answers each request to the listener: refuses what is not a delivery, verifies, saves, answers, then shows and relays it. */
class Receiver {
  /** A file svc must not write through (a planted link) ends the listener with exit 2. */
  fatal: SvcError | undefined;
  private stop: () => void = () => undefined;
  /** Deliveries are printed and forwarded one at a time, in arrival order, so lines never interleave. */
  private chain = Promise.resolve();

  constructor(private readonly parts: ReceiverParts) {}

  /** Resolves on Ctrl-C, or when a delivery could not be saved safely. */
  stopped(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.stop = resolve;
      if (this.parts.ctx.signal.aborted || this.fatal) resolve();
      this.parts.ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** Every delivery received so far has been shown. */
  settled(): Promise<void> {
    return this.chain;
  }

  private say(line: () => string): void {
    this.chain = this.chain.then(() => this.parts.ctx.io.info(line()));
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { ctx, path, saveDir } = this.parts;
    const url = new URL(request.url ?? '/', 'http://receiver');
    if (url.pathname !== path) return answer(response, 404, { error: 'not_found', detail: `deliveries go to ${path}` });
    if (request.method !== 'POST') return answer(response, 405, { error: 'method_not_allowed', detail: 'deliveries are POST requests' });
    if (request.headers.origin !== undefined) {
      // A browser's cross-site post: refused unread, never saved, never shown as a delivery.
      answer(response, 403, { error: 'forbidden', detail: 'requests from a browser (with an Origin header) are not deliveries' });
      drain(request);
      this.say(() => `refused a request from a browser (Origin ${terminalSafeLine(String(request.headers.origin).slice(0, 200))}): 403, not saved`);
      return;
    }
    const receivedAt = new Date().toISOString();
    const body = await readBody(request);
    const { chalk } = await ctx.output();
    if (body === null) {
      answer(response, 413, { error: 'too_large', detail: `body over ${MAX_BODY_BYTES} bytes (1 MiB)` });
      drain(request);
      this.say(() => deliveryLine(chalk, receivedAt, headerText(request.headers['svc-event-id']), '', { ok: false, status: 413, error: 'too_large', detail: 'body over 1 MiB, not read' }, ctx.io.stderrWidth()));
      return;
    }
    const delivery: Delivery = { receivedAt, headers: request.headers, body, ...identify(body, request.headers) };
    const { verdict, event } = await this.parts.verifier.judge(delivery);
    // Saved before it is answered or shown: a delivery acknowledged is a delivery on disk. One that
    // could not be saved is answered 500, so its sender delivers it again.
    if (saveDir !== undefined && !(await this.saved(saveDir, delivery, verdict, response))) return;
    answer(response, verdict.status, verdict.ok ? { received: true, ...(verdict.duplicate ? { duplicate: true } : {}) } : { error: verdict.error, detail: verdict.detail });
    this.chain = this.chain.then(() => this.show(delivery, verdict, event)).catch((error: unknown) => {
      // One failed print or save must not silence every later delivery: say so and keep the chain alive.
      ctx.io.info(`could not handle a delivery: ${terminalSafeLine(error instanceof Error ? error.message : String(error))}`);
    });
    await this.chain;
  }

  private async saved(saveDir: string, delivery: Delivery, verdict: Verdict, response: ServerResponse): Promise<boolean> {
    try {
      await save(this.parts.ctx, saveDir, delivery, verdict);
      return true;
    } catch (error) {
      answer(response, 500, { error: 'not_saved', detail: 'the receiver could not save the delivery' });
      if (error instanceof SymlinkRefusedError) {
        this.fatal ??= error;
        this.stop();
      } else {
        this.say(() => `could not save delivery ${terminalSafeLine(delivery.id) || '-'}: ${terminalSafeLine(error instanceof Error ? error.message : String(error))}`);
      }
      return false;
    }
  }

  private async show(delivery: Delivery, verdict: Verdict, event: SvcEvent | undefined): Promise<void> {
    const { ctx, renderer, linesOnly, forwarder } = this.parts;
    const output = await ctx.output();
    ctx.io.info(deliveryLine(output.chalk, delivery.receivedAt, delivery.id, delivery.type, verdict, ctx.io.stderrWidth()));
    if (event !== undefined && !linesOnly && !(verdict.duplicate && output.format !== 'table')) {
      await renderer.event(JSON.stringify(event), event, verdict.duplicate ? output.chalk.yellow('duplicate') : undefined);
    }
    if (verdict.ok && forwarder) forwarder.enqueue(delivery, (line) => ctx.io.info(line));
  }
}

/** What a failed check means, where no known mistake explains it. */
const REASON_TEXT: Record<string, string> = {
  no_matching_signature: 'no v1 signature matches this body with the webhook secret',
  timestamp_outside_tolerance: 'the signature time t is too far from this machine\'s clock',
};

function reject(error: string, detail: string): Verdict {
  return { ok: false, status: 400, error, detail };
}

function answer(response: ServerResponse, status: number, body: Record<string, unknown>): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function remember(seen: Set<string>, id: string): void {
  if (id === '') return;
  seen.delete(id);
  seen.add(id);
  if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value!);
}

function headerText(value: string | string[] | undefined): string {
  return typeof value === 'string' ? value : '';
}

/** The event id and type: from the body when it is a JSON object, else the Svc-Event-Id header. */
function identify(body: Buffer, headers: IncomingHttpHeaders): { id: string; type: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const object = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  const scalar = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
  return { id: scalar(object.id) || headerText(headers['svc-event-id']), type: scalar(object.type) };
}

/**
 * `2026-11-24T06:30:00.123Z  evt_1  order.sent  ✓ verified` — every value from the sender made
 * terminal-safe. With `width` (a terminal's columns) the line fits it: the time, the type and the
 * verdict stay whole, the event id gives way first, then a failure's detail shrinks with `…`.
 */
export function deliveryLine(chalk: { green(text: string): string; red(text: string): string; yellow(text: string): string }, receivedAt: string, id: string, type: string, verdict: Verdict, width?: number): string {
  const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
  const shownId = terminalSafeLine(cut(id, 100)) || '-';
  const shownType = terminalSafeLine(cut(type, 60)) || '-';
  let detail = verdict.ok ? '' : terminalSafeLine(cut(verdict.detail ?? '', 300));
  const markText = () => (verdict.ok ? `✓ verified${verdict.duplicate ? ' duplicate' : ''}` : `✗ ${verdict.error}: ${detail}`);
  let parts = [receivedAt, shownId, shownType];
  const lineWidth = () => textWidth([...parts, markText()].join('  '));
  if (width !== undefined && lineWidth() > width) parts = [receivedAt, shownType];
  if (width !== undefined && !verdict.ok && lineWidth() > width) {
    detail = truncate(detail, Math.max(1, textWidth(detail) - (lineWidth() - width)));
  }
  const mark = verdict.ok
    ? chalk.green('✓ verified') + (verdict.duplicate ? ` ${chalk.yellow('duplicate')}` : '')
    : chalk.red(markText());
  return [...parts, mark].join('  ');
}

/**
 * The raw bytes, unparsed (signatures cover them exactly); null as soon as they pass the limit, by the
 * declared length or by what arrived (nothing more is kept). The request is not destroyed, so the
 * sender still reads the 413.
 */
function readBody(request: IncomingMessage): Promise<Buffer | null> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) {
        chunks.push(chunk);
        return;
      }
      chunks = [];
      request.off('data', onData);
      request.off('end', onEnd);
      resolve(null);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', reject);
  });
}

/**
 * After a 413: the rest of the body is read and dropped (so the sender reads the answer instead of a
 * reset), up to a bound; a sender that keeps going past it loses the connection.
 */
function drain(request: IncomingMessage): void {
  let drained = 0;
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > MAX_DRAINED_BYTES) request.socket.destroy();
  });
  request.on('error', () => undefined);
  request.resume();
}

/**
 * A file name from an untrusted event id: letters, digits, `_`, `-`, `.` kept, anything else `_`,
 * at most 100 characters, never starting with a dot (no `..`, no hidden file, no path separator).
 * Empty when nothing usable is left.
 */
export function fileNameFor(id: string): string {
  const safe = id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100).replace(/^\.+/, '');
  return /[A-Za-z0-9]/.test(safe) ? safe : '';
}

/**
 * Writes `<id>.json` in the save directory, never over an existing file: a repeated id (a redelivery,
 * or a forgery reusing a real id) gets `<id>.2.json`, `<id>.3.json`, … A delivery without a usable id
 * gets `delivery-<time>-<random>.json`.
 */
async function save(ctx: Context, dir: string, delivery: Delivery, verdict: Verdict): Promise<void> {
  const text = delivery.body.toString('utf8');
  const record = {
    receivedAt: delivery.receivedAt,
    headers: savedHeaders(delivery.headers),
    body: text,
    // The text is exact unless the bytes are not UTF-8; then the bytes themselves are kept too.
    ...(Buffer.from(text, 'utf8').equals(delivery.body) ? {} : { bodyBase64: delivery.body.toString('base64') }),
    verdict: verdict.ok
      ? { valid: true, status: verdict.status, ...(verdict.duplicate ? { duplicate: true } : {}) }
      : { valid: false, status: verdict.status, reason: verdict.error, detail: verdict.detail },
  };
  const content = `${JSON.stringify(record, null, 2)}\n`;
  const base = fileNameFor(delivery.id) || `delivery-${delivery.receivedAt.replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}`;
  for (let n = 1; n < 10_000; n++) {
    const name = `${base}${n === 1 ? '' : `.${n}`}.json`;
    try {
      // Exclusive (never over a file, never through a link: a link there is refused, exit 2).
      const file = await createExclusive(join(dir, name));
      try {
        await file.writeFile(content);
      } finally {
        await file.close();
      }
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  ctx.io.info(`could not save delivery ${terminalSafeLine(delivery.id)}: too many files with that name`);
}

/** Credentials a sender (or a proxy) may carry: saved as `[redacted]`, never in clear. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

/** The request's headers as saved: every one kept, the values of credentials replaced. */
export function savedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  // Defined, not assigned: a header a sender names `__proto__` is saved as a header like any other.
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, CREDENTIAL_HEADERS.has(name.toLowerCase()) ? (Array.isArray(value) ? value.map(() => '[redacted]') : '[redacted]') : value]),
  ) as IncomingHttpHeaders;
}

/**
 * Relays verified deliveries, one at a time and in order, to another receiver: the same body bytes,
 * Content-Type and every Svc-* header (the original signature), with the service's time-outs.
 * Prints the receiver's status for each.
 */
class Relay {
  private queue = Promise.resolve();
  private pending = 0;
  private readonly http: SideRequests;

  constructor(
    private readonly url: string,
    private readonly signal: AbortSignal,
    proxy?: ProxySettings,
  ) {
    // the service's delivery time-outs: 5 s connect, 10 s response
    this.http = new SideRequests({ responseTimeoutMs: 10_000, maxBodyBytes: 0, proxy });
  }

  enqueue(delivery: Delivery, say: (line: string) => void): void {
    const id = terminalSafeLine(delivery.id) || '-';
    if (this.pending >= MAX_FORWARD_QUEUE) {
      say(`→ not forwarded ${id}: ${MAX_FORWARD_QUEUE} deliveries already waiting for ${this.url}`);
      return;
    }
    this.pending++;
    this.queue = this.queue
      .then(async () => say(`→ forwarded ${id} to ${this.url}: ${await this.send(delivery)}`))
      .finally(() => this.pending--);
  }

  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    await this.http.close();
  }

  private async send(delivery: Delivery): Promise<string> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(delivery.headers)) {
      if ((name === 'content-type' || name.startsWith('svc-')) && typeof value === 'string') headers[name] = value;
    }
    try {
      return `${(await this.http.send(this.url, { method: 'POST', headers, body: delivery.body, signal: this.signal })).status}`;
    } catch (error) {
      // Never a rejection in the queue: an interrupted relay is reported like any other failure.
      return `failed (${error instanceof Error ? error.message : String(error)})`;
    }
  }
}

/** How much time something may take per second, measured over a sliding one-second window. */
class Budget {
  private spent: { at: number; ms: number }[] = [];

  constructor(private readonly perSecondMs: number) {}

  available(): boolean {
    const now = performance.now();
    this.spent = this.spent.filter((entry) => now - entry.at < 1_000);
    return this.spent.reduce((sum, entry) => sum + entry.ms, 0) < this.perSecondMs;
  }

  spend(ms: number): void {
    this.spent.push({ at: performance.now(), ms });
  }
}

/** Starts listening on loopback; resolves with the port actually bound (port 0 picks one). */
function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new FailureError(`port ${port} is already in use`, 'port_in_use', 'pick another with --port, or --port 0 for a free one')
          : error,
      );
    });
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
