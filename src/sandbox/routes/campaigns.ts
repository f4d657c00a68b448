import { formatNullableTimestamp } from '../clock.js';
import { listedForKey, usableBrandIds } from '../models.js';
import { LIMITS } from '../../api/generated/constants.js';
import { pageByName } from '../paging.js';
import type { ApiRoute } from '../router.js';
import { ok } from '../router.js';
import { FieldErrors, checkQuery } from '../validate.js';

export const campaignRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/campaigns',
    scope: 'PERSONAL_LINKS',
    idempotency: 'none',
    handle: ({ state, key, query }) => {
      const errors = new FieldErrors();
      const params = checkQuery('listCampaigns', query, errors);
      const brandId = (params.brandId as string | undefined)?.toLowerCase();
      const status = params.status ?? 'ACTIVE';
      const limit = (params.limit as number | undefined) ?? LIMITS.pageSizeDefault;
      const after = state.cursors.readName(query, errors, 'campaigns');
      errors.throwIfAny();

      const now = state.clock.now();
      const listed = state.campaigns.filter(
        (c) =>
          c.status !== 'PREPARING' &&
          listedForKey(key, c.brandIds, brandId) &&
          state.campaignIsActive(c, now) === (status === 'ACTIVE'),
      );
      const page = pageByName(listed, after, limit);
      return ok({
        items: page.items.map((c) => ({
          id: c.id,
          name: c.name,
          status: state.campaignIsActive(c, now) ? 'ACTIVE' : 'COMPLETED',
          brandIds: usableBrandIds(key, c.brandIds),
          expiresAt: formatNullableTimestamp(c.expiresAt),
        })),
        nextCursor: state.cursors.nextName('campaigns', page),
      });
    },
  },
];
