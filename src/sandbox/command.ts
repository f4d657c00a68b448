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
  log: (line: string) => void;
  signal: AbortSignal;
  onReady?: (info: SandboxInfo) => Promise<void> | void;
}

/**
 * `svc sandbox`: serves until `signal` aborts, then closes cleanly. Prints the ready line (one JSON
 * line) on stdout; everything else goes to `log`.
 *
 * Hidden for benches: `SVC_SANDBOX_BULK_LINKS=N` preloads N ACTIVE links of the first campaign,
 * created by the `full` key across the campaign's brands, before the ready line.
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
    approvalRequired: opts.approvalRequired,
    rateLimitPerMinute: opts.rateLimit,
    faults,
    log: opts.log,
  });
  const bulkLinks = Number(process.env.SVC_SANDBOX_BULK_LINKS ?? 0);
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
    process.stdout.write(`${JSON.stringify(info)}\n`);
    opts.log(`sandbox listening on ${server.origin} (seed ${opts.seed}); admin API at ${info.adminUrl}`);
    if (!opts.signal.aborted) {
      await new Promise<void>((resolve) => opts.signal.addEventListener('abort', () => resolve(), { once: true }));
    }
  } finally {
    await server.close();
    opts.log('sandbox stopped');
  }
}
