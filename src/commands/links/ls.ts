import { LINK_STATUSES } from '../../api/types.js';
import type { Context } from '../../core/context.js';
import { listPersonalLinks } from '../../api/resources.js';
import * as validate from '../../api/checks.js';
import { runList, type ListFlags } from '../list.js';
import { linkColumns } from './columns.js';

interface Options extends ListFlags {
  brand?: string;
  campaign?: string;
  status?: string;
}

export async function run(ctx: Context, opts: Options): Promise<void> {
  await runList(ctx, opts, {
    list: listPersonalLinks,
    query: {
      brandId: validate.optionalUuid(opts.brand, '--brand'),
      campaignId: validate.optionalUuid(opts.campaign, '--campaign'),
      status: validate.oneOf(opts.status, LINK_STATUSES, '--status'),
    },
    noun: 'links',
    command: 'svc links ls',
    filters: { '--brand': opts.brand, '--campaign': opts.campaign, '--status': opts.status },
    columns: linkColumns,
  });
}
