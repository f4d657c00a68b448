import type { ApiRoute } from '../router.js';
import { ok } from '../router.js';

export const meRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/me',
    scope: null,
    idempotency: 'none',
    handle: ({ state, key }) => {
      const { id, locales, approvalRequired, customFields } = state.tenant;
      return ok({
        tenant: { id, locales, approvalRequired, customFields },
        key: { name: key.name, scopes: key.scopes, webhookUrl: key.webhookUrl },
        brands: state.brands.filter((b) => key.brandIds.includes(b.id)).map(({ id: brandId, name }) => ({ id: brandId, name })),
        environment: 'production',
      });
    },
  },
];
