import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { UsageError } from '../core/errors.js';
import { type SandboxInfo, createSandbox } from './app.js';
import { parseFaultSpec } from './faults.js';
import { listen } from './server.js';

export type { SandboxInfo } from './app.js';

export interface RunSandboxOptions {
  host: string;
  port: number;
  approvalRequired: boolean;
  rateLimit?: number;
  /** `errorRate=0.1,resetRate=0.05,rateLimitRate=0.05,delayMs=0` (see faults.ts). */
  faults?: string;
  seed: number;
  /** no --seed given: keys and webhook secrets are random */
  randomKeys?: boolean;
  log: (line: string) => void;
  /** A line in `log` per request (`--verbose`, `--log FILE`); off, requests cost no logging. */
  logRequests?: boolean;
  /** Where the ready line goes (the command's stdout). */
  stdout: { write(text: string): unknown };
  /** N ACTIVE links of the first campaign preloaded before the ready line (benches). */
  bulkLinks?: number;
  /** Check every request and answer against the API description (tests). */
  validateResponses?: boolean;
  signal: AbortSignal;
  onReady?: (info: SandboxInfo) => Promise<void> | void;
}

/**
 * `svc sandbox`: serves until `signal` aborts, then closes cleanly. Prints the ready line (one JSON
 * line) on `stdout`; everything else goes to `log`. `bulkLinks` preloads ACTIVE links of the first
 * campaign, created by the `full` key across the campaign's brands, before the ready line.
 */
export async function runSandbox(opts: RunSandboxOptions): Promise<void> {
  let faults;
  try {
    faults = opts.faults === undefined ? undefined : parseFaultSpec(opts.faults);
  } catch (err) {
    throw new UsageError((err as Error).message, 'Example: --faults errorRate=0.1,resetRate=0.05,rateLimitRate=0.05,delayMs=0');
  }
  const sandbox = createSandbox({
    seed: opts.seed,
    randomKeys: opts.randomKeys,
    approvalRequired: opts.approvalRequired,
    rateLimitPerMinute: opts.rateLimit,
    faults,
    log: opts.log,
    logRequests: opts.logRequests,
    validateResponses: opts.validateResponses,
  });
  const bulkLinks = opts.bulkLinks ?? 0;
  if (Number.isSafeInteger(bulkLinks) && bulkLinks > 0) {
    const campaign = sandbox.state.campaigns[0];
    sandbox.state.seedLinks(bulkLinks, { campaign, brandIds: campaign.brandIds, createdBy: 'full' });
  }
  if (opts.signal.aborted) {
    sandbox.close();
    return;
  }
  const server = await listen(sandbox, opts.host, opts.port).catch((err: unknown) => {
    sandbox.close();
    throw err;
  });
  const info = sandbox.info(server.origin);
  try {
    await opts.onReady?.(info);
    opts.stdout.write(`${JSON.stringify(info)}\n`);
    opts.log(`sandbox listening on ${server.origin} (seed ${opts.seed}${opts.randomKeys ? ', random keys' : ''}); admin API at ${info.adminUrl}`);
    for (const line of exposureWarning(opts.host, server.server.address())) opts.log(line);
    if (!opts.signal.aborted) {
      await new Promise<void>((resolve) => opts.signal.addEventListener('abort', () => resolve(), { once: true }));
    }
  } finally {
    await server.close();
    opts.log('sandbox stopped');
  }
}

/**
 * `--host` with a non-loopback address: a warning that the sandbox, its seeded keys and its key-less
 * admin API are then reachable by others, and the URLs that reach it from elsewhere. Empty for loopback.
 */
export function exposureWarning(host: string, address: AddressInfo | string | null, interfaces = networkInterfaces()): string[] {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare === '::1' || /^127\./.test(bare)) return [];
  const port = typeof address === 'object' && address ? address.port : 0;
  const wildcard = bare === '0.0.0.0' || bare === '::' || bare === '';
  const addresses = wildcard
    ? Object.values(interfaces)
        .flat()
        .filter((entry) => entry !== undefined && !entry.internal && (bare === '::' || entry.family === 'IPv4'))
        .map((entry) => entry!.address)
    : [bare];
  const urls = addresses.map((ip) => `http://${ip.includes(':') ? `[${ip}]` : ip}:${port}`);
  return [
    `warning: --host ${host} is not a loopback address: others who can reach this machine can use this sandbox and its keys, and its key-less admin API (/_sandbox) is exposed to them, guarded only by its loopback checks (client address, Host, Origin); keep the default 127.0.0.1 unless you need this.`,
    ...urls.map((url) => `warning: reachable at ${url}/v1 (admin API ${url}/_sandbox)`),
  ];
}
