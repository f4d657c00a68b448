/** The request of `links create`: the flag behind each body field, and the checks that need the account. */
import type { Me } from '../../api/types.js';
import { RequestChecks } from '../fields.js';

/** The flag that sets each body field, so client-side checks name what the user typed. */
const LINK_FLAGS: Record<string, string> = {
  campaignId: '--campaign',
  fullName: '--name',
  brandId: '--brand',
  email: '--email',
  message: '--message',
  locale: '--locale',
};

/** The flag behind a body field (the field itself where no flag sets it). */
export const linkFlagName = (field: string): string => LINK_FLAGS[field] ?? field;

/** A locale the account has not enabled, refused before sending once /me has been read for another reason. */
export function checkLocale(locale: string | undefined, me: Me): void {
  const checks = new RequestChecks(linkFlagName);
  checks.locale(locale, 'locale', me.tenant.locales);
  checks.throwIfAny();
}
