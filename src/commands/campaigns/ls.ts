import { CAMPAIGN_STATUSES } from '../../api/types.js';
import { listCampaigns } from '../../api/resources.js';
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import * as validate from '../../api/checks.js';
import * as resolve from '../../features/resolve.js';
import { runList } from '../../features/list.js';
import { paintStatus } from '../../features/status.js';
import type { Command } from '@commander-js/extra-typings';
import { enumOption, examples, listOptions } from '../declare.js';

export function declare(command: Command) {
  return listOptions(
    command
      .description('list campaigns, sorted by name (GET /campaigns)')
      .option('--brand <id|name>', "only this brand's campaigns (id or name)")
      .addOption(enumOption('--status <status>', 'campaign status (default ACTIVE)', CAMPAIGN_STATUSES)),
    'campaign',
  ).addHelpText('after', examples('svc campaigns ls', 'svc campaigns ls --status COMPLETED --all'));
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<void> {
  await runList(ctx, opts, {
    list: listCampaigns,
    query: {
      status: validate.oneOf(opts.status, CAMPAIGN_STATUSES, '--status'),
      brandId: await resolve.brandId(ctx, opts.brand),
    },
    noun: 'campaigns',
    command: 'svc campaigns ls',
    filters: { '--brand': opts.brand, '--status': opts.status },
    columns: [
      { header: 'ID', value: (c) => c.id, id: true },
      { header: 'Name', value: (c) => c.name },
      { header: 'Status', value: (c) => c.status, id: true, paint: (c, chalk) => paintStatus(chalk, c.status) },
      { header: 'Brands', value: (c) => (c.brandIds ?? []).length, priority: 1 },
      { header: 'Expires', value: (c) => c.expiresAt ?? 'never', id: true, priority: 2 },
    ],
  });
}
