/**
 * The receiver of `webhooks listen`: answers each request on loopback, refuses what is not a
 * delivery, has the verifier judge it, saves it (`--save-dir`) before answering, then shows it and
 * hands it to the relay (`--forward-to`), one delivery at a time in arrival order.
 *
 * A request carrying an `Origin` header comes from a browser (a page trying a cross-site post), never
 * from a webhook sender: it is answered 403 and neither saved nor shown as a delivery. A body over
 * 1 MiB is answered 413 without being kept.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { SvcEvent } from '../../api/types.js';
import type { Context } from '../../app/context.js';
import { FailureError } from '../../core/errors.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import type { EventRenderer } from '../events/render.js';
import { MAX_BODY_BYTES, answer, drain, headerText, identify, readBody, type Delivery, type Verdict } from './delivery.js';
import { deliveryLine } from './line.js';
import type { Relay } from './relay.js';
import type { Saver } from './saver.js';
import type { Verifier } from './verifier.js';

export interface ReceiverParts {
  ctx: Context;
  path: string;
  /** with --save-dir */
  saver: Saver | undefined;
  verifier: Verifier;
  renderer: EventRenderer;
  /** true: each delivery is its line on stderr only (a person at one terminal) */
  linesOnly: boolean;
  forwarder: Relay | undefined;
}

/**
 * Answers each request to the listener: refuses what is not a delivery, verifies, saves, answers,
 * then shows and relays it. No request, however formed, stops it: a delivery that could not be
 * saved is answered 500 (its sender delivers it again) and said so on its line.
 */
export class Receiver {
  /** Deliveries are printed and forwarded one at a time, in arrival order, so lines never interleave. */
  private chain = Promise.resolve();

  constructor(private readonly parts: ReceiverParts) {}

  /** Resolves on Ctrl-C. */
  stopped(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.parts.ctx.signal.aborted) resolve();
      this.parts.ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** Every delivery received so far has been shown. */
  settled(): Promise<void> {
    return this.chain;
  }

  private say(line: () => string): void {
    this.chain = this.chain.then(() => this.parts.ctx.io.info(line())).catch(() => undefined);
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { ctx, path, saver } = this.parts;
    if (pathOf(request) !== path) return answer(response, 404, { error: 'not_found', detail: `deliveries go to ${path}` });
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
    const notSaved = saver === undefined ? undefined : await saveError(saver, delivery, verdict);
    if (notSaved !== undefined) {
      answer(response, 500, { error: 'not_saved', detail: 'the receiver could not save the delivery; deliver it again' });
      this.say(() => deliveryLine(chalk, receivedAt, delivery.id, delivery.type, { ...verdict, notSaved }, ctx.io.stderrWidth()));
      return;
    }
    answer(response, verdict.status, verdict.ok ? { received: true, ...(verdict.duplicate ? { duplicate: true } : {}) } : { error: verdict.error, detail: verdict.detail });
    this.chain = this.chain.then(() => this.show(delivery, verdict, event)).catch((error: unknown) => {
      // One failed print or save must not silence every later delivery: say so and keep the chain alive.
      ctx.io.info(`could not handle a delivery: ${terminalSafeLine(error instanceof Error ? error.message : String(error))}`);
    });
    await this.chain;
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

/** The request's path; an unreadable target is nobody's path (answered 404). */
function pathOf(request: IncomingMessage): string | undefined {
  try {
    return new URL(request.url ?? '/', 'http://receiver').pathname;
  } catch {
    return undefined;
  }
}

/** Why the delivery could not be saved, or undefined once it is on disk. */
async function saveError(saver: Saver, delivery: Delivery, verdict: Verdict): Promise<string | undefined> {
  try {
    await saver.save(delivery, verdict);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A receiver listening on loopback: the port it bound, and how to close it. */
export interface Listening {
  port: number;
  close(): Promise<void>;
}

/** Starts `receiver` on loopback; resolves with the port actually bound (port 0 picks one). */
export function serve(receiver: Receiver, port: number): Promise<Listening> {
  const server = createServer((request, response) => {
    receiver.handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) answer(response, 500, { error: 'internal_error', detail: String(error) });
    });
  });
  return listen(server, port).then((bound) => ({
    port: bound,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  }));
}

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
