import type { Context } from '../core/context.js';
import * as validate from '../core/validate.js';

interface Options {
  host?: string;
  port?: string;
  approvalRequired?: boolean;
  rateLimit?: string;
  faults?: string;
  seed?: string;
  /** false with --no-profile */
  profile?: boolean;
}

export const SANDBOX_PROFILE = 'sandbox';

export async function run(ctx: Context, opts: Options): Promise<number> {
  const port = validate.port(opts.port, 4010);
  const rateLimit = validate.positiveInt(opts.rateLimit, '--rate-limit');
  const seed = validate.positiveInt(opts.seed, '--seed', 0) ?? 1;
  const { runSandbox } = await import('../sandbox/command.js');
  await runSandbox({
    host: opts.host ?? '127.0.0.1',
    port,
    approvalRequired: Boolean(opts.approvalRequired),
    rateLimit,
    faults: opts.faults,
    seed,
    log: (line) => ctx.io.info(line),
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
  });
  return 0;
}
