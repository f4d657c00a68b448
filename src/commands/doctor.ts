/**
 * `svc doctor [--webhook]`: why does our integration fail? One check a line, each with a fix (the
 * checks are in features/doctor.ts). Exit 0 only when all pass, 1 otherwise.
 */
import type { Context } from '../app/context.js';
import { ExitCode } from '../core/errors.js';
import { terminalSafeLine } from '../core/sanitize.js';
import { wrapLine } from '../core/output.js';
import { runChecks, type Check } from '../features/doctor.js';
import type { Command } from '@commander-js/extra-typings';
import type { OptionsOf } from '../app/verb.js';
import { examples } from './declare.js';

export type { Check };

export function declare(command: Command) {
  return command
    .description('check config, key, API, clock and webhook setup; one line each with a fix')
    .option('--webhook', "also send a test delivery to the key's webhook URL (POST /webhooks:test)")
    .addHelpText('after', examples('svc doctor', 'svc --profile staging doctor --webhook', 'svc doctor -o json | jq ".[] | select(.ok | not)"'));
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<number> {
  const checks = await runChecks(ctx, Boolean(opts.webhook));
  await render(ctx, checks);
  return checks.every((check) => check.ok) ? ExitCode.ok : ExitCode.refused;
}

async function render(ctx: Context, checks: Check[]): Promise<void> {
  const output = await ctx.output();
  const plain = checks.map(({ check, ok, detail }) => ({ check, ok, detail }));
  if (output.format === 'json') return ctx.io.write(`${output.json(plain, 2)}\n`);
  if (output.format === 'jsonl') return ctx.io.write(plain.map((check) => `${output.json(check)}\n`).join(''));
  if (output.format === 'csv') {
    const csv = output.csv(['check', 'ok', 'detail']);
    await csv.items(plain);
    return;
  }
  const { chalk } = output;
  // On a terminal a long detail or fix wraps under itself (at a space where it can), so no line is
  // wider than the terminal; elsewhere each stays one line.
  const width = ctx.io.stdoutIsTTY ? ctx.io.terminalWidth() : undefined;
  const wrapped = (text: string, indent: number) => (width === undefined ? [text] : wrapLine(text, Math.max(20, width - indent)));
  const lines = checks.flatMap(({ check, ok, detail, hint }) => {
    const [first, ...rest] = wrapped(terminalSafeLine(detail), 11);
    return [
      `${ok ? chalk.green('✓') : chalk.red('✗')} ${chalk.bold(check.padEnd(8))} ${first}`,
      ...rest.map((line) => `${' '.repeat(11)}${line}`),
      ...(hint && !ok ? wrapped(`fix: ${terminalSafeLine(hint)}`, 2).map((line) => `  ${chalk.dim(line)}`) : []),
    ];
  });
  await ctx.io.write(`${lines.join('\n')}\n`);
}
