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
 * This file holds the flags and the wiring; the engine is in src/features/webhooks/ (receiver,
 * verifier, saver, relay).
 */
import { mkdir } from 'node:fs/promises';
import { deliveryUrl } from '../../core/net.js';
import type { Context } from '../../app/context.js';
import { ExitCode, UsageError } from '../../core/errors.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { resolveWebhookSecret } from '../../features/webhook-secret.js';
import { EventRenderer } from '../../features/events/render.js';
import { Receiver, serve } from '../../features/webhooks/receiver.js';
import { Relay } from '../../features/webhooks/relay.js';
import { Saver } from '../../features/webhooks/saver.js';
import { Verifier } from '../../features/webhooks/verifier.js';
import { registerWithSandbox } from './register.js';
import * as validate from '../../core/validate.js';
import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf } from '../../app/verb.js';
import { examples } from '../declare.js';

export function declare(command: Command) {
  return command
    .description('run a local receiver that verifies and prints each delivery')
    .option('--port <port>', 'port to listen on (default 4242; 0 picks a free one)')
    .option('--path <path>', 'path to accept deliveries on (default /webhooks)')
    .option('--save-dir <dir>', 'write each delivery (receivedAt, headers, raw body, verdict) to DIR/<event id>.json; a taken name (a repeated id, a file or link already there) gets <id>.2.json, …: nothing is overwritten or written through a link')
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
  const saver = saveDir === undefined ? undefined : new Saver(saveDir);
  const receiver = new Receiver({ ctx, path, saver, verifier, renderer, linesOnly, forwarder });
  const server = await serve(receiver, port);
  const url = `http://127.0.0.1:${server.port}${path}`;
  ctx.io.info(`Ready: ${url}`);
  // The table's header before any delivery can be shown (one may arrive while the URL is registered).
  if (!linesOnly) await renderer.begin();
  const restore = opts.register === false ? undefined : await registerWithSandbox(ctx, url);
  if (ctx.io.stderrIsTTY) {
    const extras = [saveDir !== undefined ? `saving each to ${terminalSafeLine(saveDir)}` : '', forwardTo ? `forwarding verified ones to ${forwardTo}` : ''].filter(Boolean);
    ctx.io.info(output.chalk.dim(`Verifying each delivery with the webhook secret${extras.length ? `; ${extras.join('; ')}` : ''}; Ctrl-C to stop.`));
  }
  await receiver.stopped();
  await server.close();
  await restore?.();
  await receiver.settled();
  await forwarder?.close();
  await renderer.end();
  return ExitCode.interrupted;
}
