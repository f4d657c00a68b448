import { listRewardStores } from '../../api/resources.js';
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import * as resolve from '../../features/resolve.js';
import { runList } from '../../features/list.js';
import { paintStatus } from '../../features/status.js';
import type { Command } from '@commander-js/extra-typings';
import { examples, listOptions } from '../declare.js';

export function declare(command: Command) {
  return listOptions(command.description('list stores, sorted by name (GET /reward-stores)').option('--brand <id|name>', 'only stores serving this brand (id or name)'), 'store').addHelpText(
    'after',
    examples('svc stores ls', 'svc stores ls --brand <id> -o json'),
  );
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<void> {
  await runList(ctx, opts, {
    list: listRewardStores,
    query: { brandId: await resolve.brandId(ctx, opts.brand) },
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
