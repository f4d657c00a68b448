import { constants, type WriteStream } from 'node:fs';
import type { Context } from '../app/context.js';
import type { OptionsOf } from '../app/verb.js';
import { FailureError, UsageError } from '../core/errors.js';
import { terminalSafe } from '../core/sanitize.js';
import { SymlinkRefusedError, openNoFollow } from '../core/safe-file.js';
import * as validate from '../core/validate.js';
import type { Command } from '@commander-js/extra-typings';
import { examples } from './declare.js';

export const SANDBOX_PROFILE = 'sandbox';

export function declare(command: Command) {
  return command
    .description('run the local, stateful sandbox of the whole API')
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--port <port>', 'port (default 4010; 0 picks a free one)')
    .option('--approval-required', 'new links and orders start as REQUESTED')
    .option('--rate-limit <perMinute>', 'requests a minute per key (default 3000)')
    .option('--faults <spec>', 'inject faults, e.g. errorRate=0.1,resetRate=0.05,rateLimitRate=0.05,delayMs=0')
    .option('--seed <n>', 'seed for the generated data and keys (default: the data of seed 1 with random keys)')
    .option('--no-profile', 'do not save the "sandbox" profile')
    .option('--verbose', 'log every request and webhook delivery on stderr (default: start-up line and errors only)')
    .option('--log <file>', 'append every request and webhook delivery to this file')
    .addHelpText('after', examples('svc sandbox', 'svc sandbox --port 0 --seed 7 --approval-required', 'svc sandbox --faults errorRate=0.2,resetRate=0.05', 'svc sandbox --log sandbox.log &'));
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<number> {
  const port = validate.port(opts.port, 4010);
  const rateLimit = validate.positiveInt(opts.rateLimit, '--rate-limit');
  const seed = validate.positiveInt(opts.seed, '--seed', 0) ?? 1;
  const { runSandbox } = await import('../sandbox/command.js');
  const host = opts.host ?? '127.0.0.1';
  const traffic = opts.log === undefined ? undefined : await openLog(opts.log);
  await runSandbox({
    host,
    port,
    approvalRequired: Boolean(opts.approvalRequired),
    rateLimit,
    faults: opts.faults,
    seed,
    randomKeys: opts.seed === undefined,
    // Quiet by default, so the shell it was started from stays usable: the start-up line and errors on
    // stderr; the traffic only with --verbose (stderr) or --log FILE.
    log: (line) => {
      const isTraffic = TRAFFIC.test(line);
      if (isTraffic) traffic?.write(`${line}\n`);
      if (!isTraffic || opts.verbose) ctx.io.info(terminalSafe(line));
    },
    logRequests: Boolean(opts.verbose) || traffic !== undefined,
    stdout: ctx.io.streams.stdout,
    // Hidden, for benches and tests: links preloaded before the ready line; every answer checked.
    bulkLinks: Number(ctx.env.SVC_SANDBOX_BULK_LINKS ?? 0),
    validateResponses: ctx.env.SVC_SANDBOX_VALIDATE_RESPONSES === '1',
    signal: ctx.signal,
    onReady: async (info) => {
      if (opts.profile === false) return;
      const full = info.keys.find((key) => key.name === 'full');
      if (!full) return;
      // Lets `svc --profile sandbox …` work at once against this sandbox.
      const config = await ctx.config();
      await config.setProfile(SANDBOX_PROFILE, { baseUrl: info.baseUrl, apiKey: full.apiKey, webhookSecret: full.webhookSecret });
      ctx.io.info(`Saved profile "${SANDBOX_PROFILE}" (key full). Try: svc --profile ${SANDBOX_PROFILE} me`);
    },
  })
    .catch((error: unknown) => {
      throw listenError(error, host, port) ?? error;
    })
    .finally(() => traffic?.end());
  return 0;
}

/** The sandbox's per-request and per-delivery lines (`GET /v1/me 200 1.2ms`, `webhook … attempt 1: 200`). */
const TRAFFIC = /^(?:[A-Z]+ \/|webhook )/;

async function openLog(path: string): Promise<WriteStream> {
  // Appended to, never through a link planted at it (exit 2 naming it, nothing written).
  const handle = await openNoFollow(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND).catch((error: unknown) => {
    if (error instanceof SymlinkRefusedError) throw error;
    throw new UsageError(`--log: cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  });
  return handle.createWriteStream();
}

/** The failures of binding a port, in words a person can act on. */
function listenError(error: unknown, host: string, port: number): FailureError | undefined {
  switch ((error as NodeJS.ErrnoException)?.code) {
    case 'EADDRINUSE':
      return new FailureError(`port ${port} on ${host} is already in use`, 'port_in_use', 'pick another with --port, or --port 0 for a free one');
    case 'EACCES':
      return new FailureError(`not allowed to listen on port ${port}`, 'port_not_allowed', 'ports below 1024 need privileges; pick another with --port');
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new FailureError(`cannot listen on ${host}: no such local address`, 'bad_host', 'use --host 127.0.0.1');
    default:
      return undefined;
  }
}
