import { LINK_STATUSES, type PersonalLink } from '../../api/types.js';
import type { Context } from '../../core/context.js';
import * as validate from '../../core/validate.js';
import { runList, type ListFlags } from '../list.js';
import { linkColumns } from './columns.js';

interface Options extends ListFlags {
  brand?: string;
  campaign?: string;
  status?: string;
}

export async function run(ctx: Context, opts: Options): Promise<void> {
  await runList<PersonalLink>(ctx, opts, {
    path: '/personal-links',
    query: {
      brandId: validate.optionalUuid(opts.brand, '--brand'),
      campaignId: validate.optionalUuid(opts.campaign, '--campaign'),
      status: validate.oneOf(opts.status, LINK_STATUSES, '--status'),
    },
    noun: 'links',
    command: 'svc links ls',
    filters: { '--brand': opts.brand, '--campaign': opts.campaign, '--status': opts.status },
    columns: (names) => linkColumns(names),
    names: 'campaigns',
  });
}
