/** How one link reads for a person: the claim URL first, then its state. Shared by get, create and cancel. */
import type { PersonalLink } from '../../api/types.js';
import type { Output } from '../../core/output.js';
import { answerLines, type FieldLabels } from '../../features/answers.js';

export function renderLink(output: Output, link: PersonalLink, labels: FieldLabels = new Map()): string {
  const { chalk } = output;
  const answers = answerLines(output, link.customFields, labels);
  return [
    ...output.details([
      { label: 'Claim URL', value: link.claimUrl, whole: true, paint: chalk.cyan },
      { label: 'ID', value: link.id, whole: true },
      { label: 'Status', value: link.status },
      { label: 'Campaign', value: link.campaignId ?? (link.selection === 'CATALOG' ? 'catalog selection' : null), whole: true },
      { label: 'Brand', value: link.brandId, whole: true },
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
