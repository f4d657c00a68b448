import type { PersonalLink } from '../../api/types.js';
import type { Column } from '../../core/output.js';
import { shortId } from '../../core/output.js';

/** The claim URL is left to `links get` (and to -o jsonl): with it, a row no longer fits a terminal. */
export const linkColumns: Column<PersonalLink>[] = [
  { header: 'ID', value: (l) => l.id },
  { header: 'Status', value: (l) => l.status },
  { header: 'Campaign', value: (l) => (l.campaignId ? shortId(l.campaignId) : (l.selection ?? '')) },
  { header: 'Brand', value: (l) => shortId(l.brandId) },
  { header: 'Created', value: (l) => l.createdAt },
];
