import { LINK_STATUSES } from '../../api/types.js';
import { listPersonalLinks } from '../../api/resources.js';
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import * as validate from '../../api/checks.js';
import { runList } from '../../features/list.js';
import { linkColumns } from './columns.js';
import type { Command } from '@commander-js/extra-typings';
import { enumOption, examples, listOptions } from '../declare.js';

export function declare(command: Command) {
  return listOptions(
    command
      .description('list links, newest first (GET /personal-links)')
      .option('--brand <id>', 'only this brand')
      .option('--campaign <id>', 'only this campaign')
      .addOption(enumOption('--status <status>', 'link status', LINK_STATUSES)),
    'link',
  ).addHelpText('after', examples('svc links ls --status ACTIVE', 'svc links ls --all | jq -r .id', 'svc links ls --all --jq \'select(.status == "REQUESTED") | [.id, .campaignId] | @tsv\''));
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<void> {
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
    columns: (names) => linkColumns(names),
    names: 'campaigns',
  });
}
