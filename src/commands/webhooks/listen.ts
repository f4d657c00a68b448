/**
 * `svc webhooks listen`: a local receiver for deliveries from the sandbox, `events tail
 * --forward-to`, or curl with `webhooks sign`. It reads the raw body, verifies it with the webhook
 * secret as the spec prescribes, prints each event, and answers 200 `{"received":true}` or 400 with
 * the reason. Deliveries are at least once, so repeats are marked by event id (and not printed again
 * to a pipe). Runs until Ctrl-C, then exits 130 like every interrupted command.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { SvcEvent } from '../../api/types.js';
import type { Context } from '../../core/context.js';
import { ExitCode, FailureError, UsageError } from '../../core/errors.js';
import { verifySignature } from '../../core/signature.js';
import { diagnose } from '../../core/signature-diagnose.js';
import { resolveWebhookSecret } from '../../core/signature-secret.js';
import * as validate from '../../core/validate.js';
import { EventRenderer } from '../events/render.js';

export interface ListenOptions {
  port?: string;
  path?: string;
}

/** The spec's request body limit; anything larger is refused before it is buffered. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** How many event ids are remembered for duplicate marking (oldest forgotten first). */
const REMEMBERED_IDS = 10_000;

type Verdict = { status: number; body: Record<string, unknown>; event?: { raw: string; parsed: SvcEvent; duplicate: boolean } };

export async function run(ctx: Context, opts: ListenOptions): Promise<number> {
  const port = validate.port(opts.port, 4242);
  const path = opts.path ?? '/webhooks';
  if (!path.startsWith('/')) throw new UsageError(`--path: must start with /, got ${path}`);
  const { secret } = await resolveWebhookSecret(ctx, { stdinFlag: false });
  const output = await ctx.output();
  const renderer = new EventRenderer(output);
  const seen = new Set<string>();

  const judge = (request: IncomingMessage, body: Buffer): Verdict => {
    const header = request.headers['svc-signature'];
    if (typeof header !== 'string') return reject('missing_signature', 'no Svc-Signature header');
    const verification = verifySignature({ header, payload: body, secret, now: Math.floor(Date.now() / 1000) });
    if (!verification.valid) {
      const [cause] = diagnose({ verification, payload: body, secret });
      return reject(verification.reason!, cause ? cause.message : verification.header.problems.join('; ') || verification.reason!);
    }
    let parsed: SvcEvent;
    try {
      parsed = JSON.parse(body.toString('utf8')) as SvcEvent;
    } catch {
      return reject('invalid_json', 'the body is not JSON');
    }
    const id = String(parsed?.id ?? request.headers['svc-event-id'] ?? '');
    const duplicate = id !== '' && seen.has(id);
    remember(seen, id);
    return { status: 200, body: { received: true, ...(duplicate ? { duplicate: true } : {}) }, event: { raw: JSON.stringify(parsed), parsed, duplicate } };
  };

  // Deliveries are printed one at a time, in arrival order, so lines never interleave.
  let printing = Promise.resolve();
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://receiver');
    if (url.pathname !== path) return answer(response, 404, { error: 'not_found', detail: `deliveries go to ${path}` });
    if (request.method !== 'POST') return answer(response, 405, { error: 'method_not_allowed', detail: 'deliveries are POST requests' });
    const body = await readBody(request);
    if (body === null) return answer(response, 413, { error: 'too_large', detail: 'body over 10 MB' });
    const verdict = judge(request, body);
    answer(response, verdict.status, verdict.body);
    const event = verdict.event;
    printing = printing.then(async () => {
      if (!event) return ctx.io.info(output.chalk.red(`✗ rejected delivery: ${verdict.body.error}: ${verdict.body.detail}`));
      if (event.duplicate && output.format !== 'table') return ctx.io.info(`duplicate delivery of ${event.parsed?.id} (not printed again)`);
      await renderer.event(event.raw, event.parsed, event.duplicate ? output.chalk.yellow('duplicate') : undefined);
    }).catch((error: unknown) => {
      // One failed print must not silence every later delivery: say so and keep the chain alive.
      ctx.io.info(`could not print a delivery: ${error instanceof Error ? error.message : String(error)}`);
    });
    await printing;
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) answer(response, 500, { error: 'internal_error', detail: String(error) });
    });
  });
  const address = await listen(server, port);
  await renderer.begin();
  ctx.io.info(`Ready: http://127.0.0.1:${address}${path}`);
  if (ctx.io.stderrIsTTY) ctx.io.info(output.chalk.dim('Verifying each delivery with the webhook secret; Ctrl-C to stop.'));
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await printing;
  await renderer.end();
  return ExitCode.interrupted;
}

function reject(error: string, detail: string): Verdict {
  return { status: 400, body: { error, detail } };
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

/** The raw bytes, unparsed (signatures cover them exactly); null when over the limit. */
async function readBody(request: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
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
