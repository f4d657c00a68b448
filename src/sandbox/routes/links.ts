import { ApiProblem } from '../errors.js';
import { LIMITS } from '../../api/generated/constants.js';
import { type LinkStatus, type PersonalLink, linkJson, usableBrandIds } from '../models.js';
import { pageNewestFirst } from '../paging.js';
import type { ApiContext, ApiRoute } from '../router.js';
import { bodyObject, ok, pathRecord } from '../router.js';
import { FieldErrors, checkBody, checkQuery, readCustomFieldAnswers } from '../validate.js';

/** A link the key may read: one of its brands (records of other brands are 404). */
function visibleLink(ctx: ApiContext): PersonalLink {
  return pathRecord(ctx, 'linkId', 'The personal link', (id) => {
    const link = ctx.state.link(id);
    return link !== undefined && ctx.key.brandIds.includes(link.brandId) ? link : undefined;
  });
}

export const linkRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/personal-links',
    scope: 'PERSONAL_LINKS',
    idempotency: 'none',
    handle: ({ state, key, query }) => {
      const errors = new FieldErrors();
      const params = checkQuery('listPersonalLinks', query, errors);
      const brandId = (params.brandId as string | undefined)?.toLowerCase();
      const campaignId = (params.campaignId as string | undefined)?.toLowerCase();
      const status = params.status as LinkStatus | undefined;
      const limit = (params.limit as number | undefined) ?? LIMITS.pageSizeDefault;
      const after = state.cursors.readTime(query, errors, 'links');
      errors.throwIfAny();

      const brands = new Set(key.brandIds);
      const page = pageNewestFirst(
        state.links,
        after,
        limit,
        (l) =>
          brands.has(l.brandId) &&
          (brandId === undefined || l.brandId === brandId) &&
          (campaignId === undefined || l.campaignId === campaignId) &&
          (status === undefined || l.status === status),
      );
      return ok({
        items: page.items.map(linkJson),
        nextCursor: state.cursors.nextTime('links', page),
      });
    },
  },
  {
    method: 'POST',
    path: '/personal-links',
    scope: 'PERSONAL_LINKS',
    idempotency: 'required',
    handle: ({ state, key, body: rawBody }) => {
      const errors = new FieldErrors();
      const body = checkBody('createPersonalLink', bodyObject(rawBody), errors);
      const locale = errors.enabledLocale(body.locale, 'locale', state.tenant.locales);
      const customFields = readCustomFieldAnswers(body.customFields, state.tenant.customFields, errors);
      errors.throwIfAny();
      // The schema checked every member: present ones have their documented types.
      const campaignId = (body.campaignId as string).toLowerCase();
      const fullName = body.fullName as string;
      const requestedBrandId = (body.brandId as string | undefined)?.toLowerCase();
      const email = body.email as string | undefined;
      const message = body.message as string | undefined;

      const campaign = state.campaign(campaignId);
      const usableBrands = campaign === undefined ? [] : usableBrandIds(key, campaign.brandIds);
      if (campaign === undefined || usableBrands.length === 0) {
        throw new ApiProblem(422, 'campaign_not_found', `Campaign ${campaignId} does not exist or is not usable with this key.`);
      }
      if (!state.campaignIsActive(campaign)) {
        throw new ApiProblem(422, 'campaign_not_active', `Campaign ${campaign.id} is not active (not ready yet, ended or past its expiry).`);
      }
      if (requestedBrandId !== undefined && !usableBrands.includes(requestedBrandId)) {
        throw new ApiProblem(422, 'campaign_not_found', `Brand ${requestedBrandId} is not one of the campaign's brands usable with this key.`);
      }
      if (requestedBrandId === undefined && usableBrands.length > 1) {
        errors.add('brandId', 'required', 'brandId is required: the key can use more than one of the campaign\'s brands.');
        errors.throwIfAny();
      }
      const link = state.createLink({
        campaign,
        brandId: requestedBrandId ?? usableBrands[0],
        fullName,
        email: email ?? null,
        message: message ?? null,
        locale,
        customFields,
        createdBy: key.name,
      });
      return ok(linkJson(link), 201);
    },
  },
  {
    method: 'GET',
    path: '/personal-links/{linkId}',
    scope: 'PERSONAL_LINKS',
    idempotency: 'none',
    handle: (ctx) => ok(linkJson(visibleLink(ctx))),
  },
  {
    method: 'POST',
    path: '/personal-links/{linkId}:cancel',
    scope: 'PERSONAL_LINKS',
    idempotency: 'optional',
    handle: (ctx) => {
      const link = visibleLink(ctx);
      const errors = new FieldErrors();
      const reason = checkBody('cancelPersonalLink', bodyObject(ctx.body), errors).reason as string;
      errors.throwIfAny();
      if (link.createdBy !== ctx.key.name) {
        throw new ApiProblem(409, 'not_cancellable', 'Only the key that created a link can cancel it; this one was created elsewhere.', {
          reason: 'created_elsewhere',
          currentStatus: link.status,
        });
      }
      if (link.status === 'CLAIMED' || link.status === 'EXPIRED') {
        throw new ApiProblem(409, 'not_cancellable', `The link is ${link.status} and can no longer be cancelled.`, { currentStatus: link.status });
      }
      ctx.state.cancelLink(link, reason, ctx.key.name);
      return ok(linkJson(link));
    },
  },
];
