import type { PersonalLink } from '../../api/types.js';
import type { Column } from '../../core/output.js';
import type { Names } from '../../app/names.js';
import { paintStatus } from '../../features/status.js';

/**
 * The claim URL is left to `links get` (and to -o jsonl): with it, a row no longer fits a terminal.
 * The link's id is shown whole, so it can be pasted into another command; campaign and brand show
 * by name (ids when a name is unknown) and shrink with … on a narrow terminal; the creation time
 * gives way first.
 */
export function linkColumns(names: Names): Column<PersonalLink>[] {
  return [
    { header: 'ID', value: (l) => l.id, id: true },
    { header: 'Status', value: (l) => l.status, id: true, paint: (l, chalk) => paintStatus(chalk, l.status) },
    { header: 'Campaign', value: (l) => (l.campaignId ? names.campaign(l.campaignId) ?? l.campaignId : l.selection === 'CATALOG' ? 'catalog' : '') },
    { header: 'Brand', value: (l) => names.brand(l.brandId) ?? l.brandId },
    { header: 'Created', value: (l) => l.createdAt, id: true, priority: 1 },
  ];
}
