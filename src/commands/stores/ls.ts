import type { RewardStoreSummary } from '../../api/types.js';
import type { Context } from '../../core/context.js';
import * as validate from '../../core/validate.js';
import { runList, type ListFlags } from '../list.js';
import { paintStatus } from '../../features/status.js';

interface Options extends ListFlags {
  brand?: string;
}

export async function run(ctx: Context, opts: Options): Promise<void> {
  await runList<RewardStoreSummary>(ctx, opts, {
    path: '/reward-stores',
    query: { brandId: validate.optionalUuid(opts.brand, '--brand') },
    noun: 'stores',
    command: 'svc stores ls',
    filters: { '--brand': opts.brand },
    columns: [
      { header: 'ID', value: (s) => s.id, id: true },
      { header: 'Name', value: (s) => s.name },
      { header: 'Phase', value: (s) => s.phase, id: true, paint: (s, chalk) => paintStatus(chalk, s.phase) },
      { header: 'Brands', value: (s) => (s.brandIds ?? []).length, priority: 1 },
      { header: 'Starts', value: (s) => s.startsAt ?? 'open', id: true, priority: 2 },
      { header: 'Ends', value: (s) => s.endsAt ?? 'never', id: true, priority: 3 },
    ],
  });
}
