import type { PersonalLink } from '../../api/types.js';
import type { Column } from '../../core/output.js';

/**
 * The claim URL is left to `links get` (and to -o jsonl): with it, a row no longer fits a terminal.
 * Ids are shown whole, so any of them can be pasted into another command; on a narrow terminal the
 * brand, then the campaign, then the creation time are left out.
 */
export const linkColumns: Column<PersonalLink>[] = [
  { header: 'ID', value: (l) => l.id, id: true },
  { header: 'Status', value: (l) => l.status, id: true },
  { header: 'Campaign', value: (l) => l.campaignId ?? l.selection ?? '', id: true, priority: 2 },
  { header: 'Brand', value: (l) => l.brandId, id: true, priority: 1 },
  { header: 'Created', value: (l) => l.createdAt, id: true, priority: 3 },
];
