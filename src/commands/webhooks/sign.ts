/**
 * `svc webhooks sign`: prints the `Svc-Signature` value the service would send for a payload, so a
 * receiver can be tested with curl. The bare value is printed unless `-o json|jsonl` is asked for
 * explicitly, so `$(svc webhooks sign …)` works in a pipe, where jsonl is the default format.
 */
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import * as validate from '../../core/validate.js';
import { UsageError } from '../../core/errors.js';
import { computeSignature } from '../../core/signature.js';
import { resolveWebhookSecret } from '../../features/webhook-secret.js';
import type { Command } from '@commander-js/extra-typings';
import { PAYLOAD_LIMIT, readFileOrStdin } from '../../core/stdin.js';
import { examples } from '../declare.js';

export function declare(command: Command) {
  return command
    .description('print a valid Svc-Signature header value for a payload')
    .option('--payload-file <file>', 'the raw body, a regular file up to 1 MiB (- reads stdin)')
    .option('--secret-stdin', 'read the webhook secret from stdin (else SVC_WEBHOOK_SECRET, then the profile)')
    .option('--timestamp <unix>', 'signature time in unix seconds (default now)')
    .addHelpText('after', examples('svc webhooks sign --payload-file event.json', 'svc webhooks sign --payload-file event.json --timestamp 1763719200'));
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<void> {
  if (opts.payloadFile === undefined) throw new UsageError('--payload-file: required (the raw body to sign, - for stdin)');
  if (opts.payloadFile === '-' && opts.secretStdin) throw new UsageError('--payload-file - and --secret-stdin cannot both read standard input');
  const timestamp = validate.wholeSeconds(opts.timestamp, '--timestamp') ?? Math.floor(Date.now() / 1000);
  const { secret } = await resolveWebhookSecret(ctx, { secretStdin: opts.secretStdin, stdinFlag: true });
  const payload = await readFileOrStdin(opts.payloadFile, ctx.io.streams.stdin, '--payload-file', ctx.signal, PAYLOAD_LIMIT);
  const signature = computeSignature(secret, timestamp, payload);
  const header = `t=${timestamp},v1=${signature}`;
  if (ctx.options.output === 'json' || ctx.options.output === 'jsonl') {
    const output = await ctx.output();
    await output.object({ header, timestamp, signature });
    return;
  }
  await ctx.io.write(`${header}\n`);
}
