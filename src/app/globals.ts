/**
 * The global options, declared once: `src/cli.ts` puts them on the root command, and their types are
 * the Context's options (see GlobalOptions in context.ts), inferred from this declaration as a verb's
 * are from its own (see verb.ts).
 */
import type { Command } from '@commander-js/extra-typings';
import { Option } from './commander.js';

export function declareGlobals(program: Command) {
  return program
    .addOption(new Option('--profile <name>', 'stored profile to use').env('SVC_PROFILE'))
    .option('--base-url <url>', 'API base URL ending in /v1 (env SVC_BASE_URL); http:// only for loopback')
    .addOption(new Option('-o, --output <format>', 'output format (default: table on a TTY, jsonl otherwise)').choices(['table', 'json', 'jsonl', 'csv']))
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--no-input', 'never prompt (implied when not on a TTY or CI is set)')
    .option('--debug', 'request and response lines on stderr, secrets redacted (also SVC_DEBUG=1)')
    .option('--timeout <seconds>', 'per-attempt response time-out (default 30)')
    .option('--max-retries <n>', 'retries for retryable failures (default 4)')
    .option('--rate <perMinute>', 'never exceed this many requests a minute (default 3000)')
    .option('--jq <expr>', 'run each JSON value printed through this jq program; results one a line, strings raw (implies -o jsonl unless -o json)');
}
