/** How one link reads for a person: the claim URL first, then its state. Shared by get, create and cancel. */
import type { PersonalLink } from '../../api/types.js';
import type { Output } from '../../core/output.js';
import { answerLines, type FieldLabels } from '../answers.js';

export function renderLink(output: Output, link: PersonalLink, labels: FieldLabels = new Map()): string {
  const { chalk } = output;
  const row = (label: string, value: string | null | undefined) => `${chalk.bold(label.padEnd(11))}  ${value ?? chalk.dim('—')}`;
  const answers = answerLines(output, link.customFields, labels);
  return [
    row('Claim URL', chalk.cyan(link.claimUrl)),
    row('ID', link.id),
    row('Status', link.status),
    row('Campaign', link.campaignId ?? (link.selection === 'CATALOG' ? 'catalog selection' : null)),
    row('Brand', link.brandId),
    row('Created', link.createdAt),
    row('Expires', link.expiresAt ?? 'never'),
    ...(link.approvedAt ? [row('Approved', link.approvedAt)] : []),
    ...(link.claimedAt ? [row('Claimed', link.claimedAt)] : []),
    ...(link.cancelledAt ? [row('Cancelled', link.cancelledAt)] : []),
    row('Updated', link.updatedAt),
    ...(answers.length ? [chalk.bold('Custom fields'), ...answers] : []),
  ].join('\n');
}
