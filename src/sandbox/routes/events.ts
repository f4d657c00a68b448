import { LIMITS } from '../../api/generated/constants.js';
import type { ApiRoute } from '../router.js';
import { FieldErrors, checkQuery } from '../validate.js';

export const eventRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/events',
    scope: null,
    idempotency: 'none',
    handle: ({ state, key, query }) => {
      const errors = new FieldErrors();
      const limit = (checkQuery('listEvents', query, errors).limit as number | undefined) ?? LIMITS.pageSizeDefault;
      const after = state.cursors.readSeq(query, errors);
      if (after !== null && after > state.lastSeq) errors.add('after', 'invalid', 'after is not a cursor of this feed.');
      errors.throwIfAny();

      const items = state.feed(key, after, limit);
      // A cursor on every page: the last item's position, or the caller's own cursor on an empty page.
      const nextCursor = items.length > 0 ? state.cursors.seq(items[items.length - 1].seq) : query.get('after');
      // Items are the stored event JSON itself, the same bytes a webhook delivers.
      return { status: 200, json: `{"items":[${items.map((e) => e.json).join(',')}],"nextCursor":${JSON.stringify(nextCursor)}}` };
    },
  },
];
