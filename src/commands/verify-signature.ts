/**
 * `svc verify-signature`: checks a Svc-Signature header against the raw payload bytes, prints a
 * verdict with its evidence and, when invalid, the mistake that explains it. Exit 0 valid, 1 invalid.
 */
import type { Context } from '../app/context.js';
import { ExitCode, FailureError, UsageError } from '../core/errors.js';
import * as validate from '../core/validate.js';
import type { Output } from '../core/output.js';
import { terminalSafeLine } from '../core/sanitize.js';
import { DEFAULT_TOLERANCE_SECONDS, verifySignature } from '../core/signature.js';
import { diagnose } from '../core/signature-diagnose.js';
import { toReport, type VerifyReport } from '../features/verify-signature.js';
import { knownSecrets, resolveWebhookSecret } from '../features/webhook-secret.js';
import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf } from '../app/verb.js';
import { PAYLOAD_LIMIT, readFileOrStdin } from '../core/stdin.js';
import { examples } from './declare.js';

export function declare(command: Command) {
  return command
    .description('check a Svc-Signature header against a payload and explain why it fails')
    .option('--header <value>', 'the Svc-Signature header value')
    .option('--payload-file <file>', 'the raw body as received, a regular file up to 1 MiB (- reads stdin)')
    .option('--secret-stdin', 'read the webhook secret from stdin (else SVC_WEBHOOK_SECRET, then the profile)')
    .option('--tolerance <seconds>', 'allowed clock skew (default 300)')
    .option('--now <unix>', 'check as if the time were this (unix seconds)')
    .addHelpText('after', examples('svc verify-signature --header "t=1763719200,v1=5f…" --payload-file body.json', 'svc verify-signature --header "$SIG" --payload-file - < body.json'));
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<number> {
  if (opts.header === undefined) throw new UsageError('--header: required (the Svc-Signature header value)');
  if (opts.payloadFile === undefined) throw new UsageError('--payload-file: required (the raw body as received, - for stdin)');
  if (opts.payloadFile === '-' && opts.secretStdin) throw new UsageError('--payload-file - and --secret-stdin cannot both read standard input');
  const toleranceSeconds = validate.wholeSeconds(opts.tolerance, '--tolerance') ?? DEFAULT_TOLERANCE_SECONDS;
  const now = validate.wholeSeconds(opts.now, '--now') ?? Math.floor(Date.now() / 1000);
  const { secret, source } = await resolveWebhookSecret(ctx, { secretStdin: opts.secretStdin, stdinFlag: true });
  const payload = await readFileOrStdin(opts.payloadFile, ctx.io.streams.stdin, '--payload-file', ctx.signal, PAYLOAD_LIMIT);

  const verification = verifySignature({ header: opts.header, payload, secret, now, toleranceSeconds });
  const causes = verification.valid ? [] : diagnose({ verification, payload, secret, otherSecrets: await knownSecrets(ctx) });
  const report = toReport(verification, causes, now, source);
  const output = await ctx.output();
  await output.object(report, (value) => renderReport(output, value));
  // The verdict and evidence are the data (stdout); the failure itself is also reported on stderr, like
  // every failure, except where both are the same terminal: a person reads the verdict once.
  if (!report.valid && output.format === 'table' && ctx.io.sharesTerminal()) return ExitCode.refused;
  if (!report.valid) throw new FailureError(`${report.reason}: ${report.detail}`, 'invalid_signature');
  return ExitCode.ok;
}

/** The verdict and evidence for a person; the header's parts came from outside, so each is made safe. */
function renderReport(output: Output, report: VerifyReport): string {
  const { chalk } = output;
  const safe = terminalSafeLine;
  const row = (label: string, value: string) => `  ${chalk.bold(label.padEnd(9))} ${value}`;
  const lines = [report.valid ? chalk.green(`✓ ${safe(report.detail)}`) : chalk.red(`✗ invalid: ${safe(report.reason)}: ${safe(report.detail)}`)];
  for (const cause of report.causes) lines.push(`  ${chalk.yellow('likely cause')}: ${safe(cause.message)} [${safe(cause.code)}]`);
  if (!report.valid && report.causes.length === 0 && report.reason === 'no_matching_signature') {
    lines.push(`  ${chalk.yellow('likely cause')}: no known mistake explains it; the secret (${safe(report.secretSource)}) is probably not the sender's (rotated?) or the body was changed`);
  }
  if (report.timestamp !== null) {
    lines.push(row('t', `${report.timestamp} (${isoOrRaw(report.timestamp)})`));
    lines.push(row('skew', `${signed(report.skewSeconds!)}s from now (${report.now}); tolerance ±${report.toleranceSeconds}s`));
  }
  if (report.signatures.length === 0) lines.push(row('v1', chalk.dim('none')));
  for (const signature of report.signatures) {
    lines.push(row('v1', `${safe(signature)}${signature === report.expected ? chalk.green('  matches') : ''}`));
  }
  if (report.otherSchemes.length > 0) lines.push(row('ignored', safe(report.otherSchemes.join(', '))));
  if (report.expected !== null) lines.push(row('expected', `${safe(report.expected)}  (secret from ${safe(report.secretSource)})`));
  return lines.join('\n');
}

function signed(value: number): string {
  return value > 0 ? `+${value}` : String(value);
}

function isoOrRaw(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? 'not a date' : date.toISOString().replace('.000Z', 'Z');
}
