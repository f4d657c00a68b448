import type { ApiRoute } from '../router.js';
import { campaignRoutes } from './campaigns.js';
import { eventRoutes } from './events.js';
import { linkRoutes } from './links.js';
import { meRoutes } from './me.js';
import { orderRoutes } from './orders.js';
import { storeRoutes } from './stores.js';
import { webhookRoutes } from './webhooks.js';

export const apiRoutes: ApiRoute[] = [...meRoutes, ...campaignRoutes, ...linkRoutes, ...storeRoutes, ...orderRoutes, ...eventRoutes, ...webhookRoutes];
