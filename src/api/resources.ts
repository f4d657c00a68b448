/**
 * The API's operations as typed functions, one per operationId of the description
 * (openapi/openapi.yaml): `getMe(client)`, `listPersonalLinks(client, query)`,
 * `createPersonalLink(client, body, { idempotencyKey })`, … The build generates them
 * (src/api/generated/resources.ts); commands call these, never a path of their own. A list
 * operation pages with `pagesOf` (./paginate.ts).
 */
export * from './generated/resources.js';
