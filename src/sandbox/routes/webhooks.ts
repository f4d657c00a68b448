import type { ApiRoute } from '../router.js';
import { ok } from '../router.js';

export const webhookRoutes: ApiRoute[] = [
  {
    method: 'POST',
    path: '/webhooks:test',
    scope: null,
    // Every call sends a real ping, whatever Idempotency-Key says.
    idempotency: 'ignored',
    handle: async ({ webhooks, key }) => ok(await webhooks.ping(key)),
  },
];
