import { LINK_STATUSES } from '../../api/types.js';
import { listPersonalLinks } from '../../api/resources.js';
import type { Context } from '../../app/context.js';
import type { OptionsOf } from '../../app/verb.js';
import * as validate from '../../api/checks.js';
import * as resolve from '../../features/resolve.js';
import { runList } from '../../features/list.js';
import { linkColumns } from './columns.js';
import type { Command } from '@commander-js/extra-typings';
import { collect, enumOption, examples, listOptions } from '../declare.js';

export function declare(command: Command) {
  return listOptions(
    command
      .description('list links, newest first (GET /personal-links)')
      .option('--brand <id|name>', 'only this brand (id or name)')
      .option('--campaign <id|name>', 'only this campaign (id or name)')
      .option('--field <field=value>', 'only links holding this custom-field answer; the field by label or id (repeatable)', collect)
      .addOption(enumOption('--status <status>', 'link status', LINK_STATUSES)),
    'link',
  ).addHelpText('after', examples('svc links ls --status ACTIVE', 'svc links ls --field "Player ID=12345"', 'svc links ls --campaign "Birthday Gifts 2026" --brand "Lucky Star Casino"', 'svc links ls --all | jq -r .id', 'svc links ls --all --jq \'select(.status == "REQUESTED") | [.id, .campaignId] | @tsv\''));
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>): Promise<void> {
  const status = validate.oneOf(opts.status, LINK_STATUSES, '--status');
  await runList(ctx, opts, {
    list: listPersonalLinks,
    query: { brandId: await resolve.brandId(ctx, opts.brand), campaignId: await resolve.campaignId(ctx, opts.campaign), status },
    keep: await resolve.linkFieldFilter(ctx, opts.field),
    noun: 'links',
    command: 'svc links ls',
    filters: { '--brand': opts.brand, '--campaign': opts.campaign, '--status': opts.status, '--field': opts.field },
    columns: (names) => linkColumns(names),
    names: 'campaigns',
  });
}
