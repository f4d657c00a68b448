import type { ApiKeyRecord, Tenant } from '../models.js';
import type { ApiResult, ApiRoute } from '../router.js';
import { ok } from '../router.js';
import type { SandboxState } from '../store.js';

/**
 * GET /me is the call clients make most (every `svc` start-up check, health probes), and its answer
 * changes only when the team changes the key or the account. So each key's answer is kept with what
 * it was made from and made again only when one of those differs: the key's scopes, brands and
 * webhook URL, and the account's approval switch, locales and custom fields (whose `required` flag
 * the team sets in place).
 */
interface Answer {
  result: ApiResult;
  scopes: readonly string[];
  brandIds: readonly string[];
  webhookUrl: string | null;
  approvalRequired: boolean;
  locales: readonly string[];
  customFields: Tenant['customFields'];
  required: boolean[];
}

const answers = new WeakMap<ApiKeyRecord, Answer>();

const sameList = (a: readonly unknown[], b: readonly unknown[]): boolean => a.length === b.length && a.every((value, i) => value === b[i]);

function stillValid(answer: Answer, key: ApiKeyRecord, tenant: Tenant): boolean {
  return (
    answer.webhookUrl === key.webhookUrl &&
    answer.approvalRequired === tenant.approvalRequired &&
    answer.customFields === tenant.customFields &&
    sameList(answer.scopes, key.scopes) &&
    sameList(answer.brandIds, key.brandIds) &&
    sameList(answer.locales, tenant.locales) &&
    answer.required.length === tenant.customFields.length &&
    tenant.customFields.every((field, i) => field.required === answer.required[i])
  );
}

function answerMe(state: SandboxState, key: ApiKeyRecord): ApiResult {
  const { tenant } = state;
  const kept = answers.get(key);
  if (kept !== undefined && stillValid(kept, key, tenant)) return kept.result;
  const { id, locales, approvalRequired, customFields } = tenant;
  const result = ok({
    tenant: { id, locales, approvalRequired, customFields },
    key: { name: key.name, scopes: key.scopes, webhookUrl: key.webhookUrl },
    brands: state.brands.filter((b) => key.brandIds.includes(b.id)).map(({ id: brandId, name }) => ({ id: brandId, name })),
    environment: 'production',
  });
  answers.set(key, {
    result,
    scopes: [...key.scopes],
    brandIds: [...key.brandIds],
    webhookUrl: key.webhookUrl,
    approvalRequired,
    locales: [...locales],
    customFields,
    required: customFields.map((field) => field.required),
  });
  return result;
}

export const meRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/me',
    scope: null,
    idempotency: 'none',
    handle: ({ state, key }) => answerMe(state, key),
  },
];
