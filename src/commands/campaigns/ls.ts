import { CAMPAIGN_STATUSES, type Campaign } from '../../api/types.js';
import type { Context } from '../../core/context.js';
import * as validate from '../../core/validate.js';
import { runList, type ListFlags } from '../list.js';
import { paintStatus } from '../../features/status.js';

interface Options extends ListFlags {
  brand?: string;
  status?: string;
}

export async function run(ctx: Context, opts: Options): Promise<void> {
  await runList<Campaign>(ctx, opts, {
    path: '/campaigns',
    query: {
      brandId: validate.optionalUuid(opts.brand, '--brand'),
      status: validate.oneOf(opts.status, CAMPAIGN_STATUSES, '--status'),
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
