/** How one link reads for a person: the claim URL first, then its state. Shared by get, create and cancel. */
import type { ApiClient } from '../../api/client.js';
import type { Me, PersonalLink } from '../../api/types.js';
import type { Output } from '../../core/output.js';
import { Names, namesFor } from '../../app/names.js';
import { paintStatus } from '../../features/status.js';
import { answerLines } from '../../features/answers.js';

export function renderLink(output: Output, link: PersonalLink, names: Names = new Names()): string {
  const { chalk } = output;
  const answers = answerLines(output, link.customFields, names);
  return [
    ...output.details([
      { label: 'Claim URL', value: link.claimUrl, whole: true, paint: chalk.cyan },
      { label: 'ID', value: link.id, whole: true },
      { label: 'Status', value: link.status, paint: paintStatus(chalk, link.status) },
      link.campaignId ? names.campaignRow('Campaign', link.campaignId) : { label: 'Campaign', value: link.selection === 'CATALOG' ? 'catalog selection' : null },
      names.brandRow('Brand', link.brandId),
      { label: 'Created', value: link.createdAt, whole: true },
      { label: 'Expires', value: link.expiresAt ?? 'never', whole: true },
      ...(link.approvedAt ? [{ label: 'Approved', value: link.approvedAt, whole: true }] : []),
      ...(link.claimedAt ? [{ label: 'Claimed', value: link.claimedAt, whole: true }] : []),
      ...(link.cancelledAt ? [{ label: 'Cancelled', value: link.cancelledAt, whole: true }] : []),
      { label: 'Updated', value: link.updatedAt, whole: true },
    ]),
    ...(answers.length ? [chalk.bold('Custom fields'), ...answers] : []),
  ].join('\n');
}

/** Prints a link: JSON as it is, or for a person its view with the names of its brand and campaign (`me` when already read). */
export async function showLink(output: Output, client: ApiClient, signal: AbortSignal, link: PersonalLink, me?: Me): Promise<void> {
  await output.object(link, async (value) => renderLink(output, value, await namesFor(client, signal, { me, campaigns: value.campaignId !== null })));
}
