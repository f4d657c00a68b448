/**
 * A read tool for every read operation of the API description: its arguments are the operation's
 * parameters (schema from the description), its result the API's JSON (lists as
 * `{items, nextCursor}`, one bounded page), with brand and campaign names beside their ids.
 */
import * as api from '../../api/resources.js';
import { boundedList } from './result.js';
import { operationInput, type OperationInput } from './schema.js';
import { READ_ONLY, objectSchema, text, withNames, type Call, type Tool } from './tool.js';

interface ReadSpec {
  name: string;
  title: string;
  operationId: string;
  description: string;
  /** the call; `input` says where each argument goes */
  read(call: Call, args: Record<string, unknown>, input: OperationInput): Promise<Record<string, unknown>>;
}

type ListFn = (client: Call['client'], query: never, options: { signal: AbortSignal }) => Promise<{ body: { items: unknown[]; nextCursor: string | null } }>;

/** One page of a list, names beside ids, bounded. */
function listPage(list: ListFn, names?: { campaigns?: boolean }) {
  return async (call: Call, args: Record<string, unknown>, input: OperationInput) => {
    const query = pick(args, input.query);
    const { body } = await list(call.client, query as never, { signal: call.signal });
    const known = names ? await call.names(names) : undefined;
    const items = known ? body.items.map((item) => withNames(item, known)) : body.items;
    return boundedList('items', items, { nextCursor: body.nextCursor }, (shown) => `the page was too large to return whole: call again with the same arguments and limit: ${Math.max(1, shown)}, then follow that page's nextCursor`);
  };
}

function pick(args: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
}

const LIST_HINT = 'One page per call: pass nextCursor as `after` for the next page (null: no more).';

const SPECS: ReadSpec[] = [
  {
    name: 'me',
    title: 'The calling key and account',
    operationId: 'getMe',
    description: "Who svc is calling as: the API key's name, scopes and webhook URL, the account's locales and custom fields, and the brands (ids and names) this key may use. Ask this first to learn brand ids.",
    read: async (call) => (await api.getMe(call.client, { signal: call.signal })).body as unknown as Record<string, unknown>,
  },
  {
    name: 'campaigns_list',
    title: 'List campaigns',
    operationId: 'listCampaigns',
    description: `Campaigns (gift selections personal links are created from), sorted by name; ACTIVE ones unless a status is given. ${LIST_HINT}`,
    read: listPage(api.listCampaigns as unknown as ListFn, {}),
  },
  {
    name: 'links_list',
    title: 'List personal gift links',
    operationId: 'listPersonalLinks',
    description: `Personal gift links, newest first, optionally of one brand, campaign or status (REQUESTED, ACTIVE, CLAIMED, CANCELLED, EXPIRED): "which links of campaign X are still unclaimed?". Each with brandName and campaignName beside the ids. ${LIST_HINT}`,
    read: listPage(api.listPersonalLinks as unknown as ListFn, { campaigns: true }),
  },
  {
    name: 'links_get',
    title: 'Read a personal gift link',
    operationId: 'getPersonalLink',
    description: "One personal gift link by id: its status (was it claimed? when?), the player's name, claim URL, campaign and brand (with names). For the link's history of events use inspect.",
    read: async (call, args) => withNames((await api.getPersonalLink(call.client, text(args, 'linkId')!, { signal: call.signal })).body as unknown as Record<string, unknown>, await call.names({ campaigns: true })),
  },
  {
    name: 'stores_list',
    title: 'List rewards stores',
    operationId: 'listRewardStores',
    description: `Rewards stores (where players spend coins on gifts), sorted by name, with their brands and countries. ${LIST_HINT}`,
    read: listPage(api.listRewardStores as unknown as ListFn),
  },
  {
    name: 'stores_show',
    title: 'Read a rewards store',
    operationId: 'getRewardStore',
    description: "One rewards store as a player of a brand in a delivery country sees it: its gifts, their coin prices, options and availability. orders_place needs a gift's coin price from here.",
    read: async (call, args, input) =>
      (await api.getRewardStore(call.client, text(args, 'storeId')!, pick(args, input.query) as never, { signal: call.signal })).body as unknown as Record<string, unknown>,
  },
  {
    name: 'orders_list',
    title: 'List rewards store orders',
    operationId: 'listRewardStoreOrders',
    description: `Store orders this key placed, newest first, optionally of one brand, store or status (e.g. CANCELLED): "which orders were cancelled?". ${LIST_HINT}`,
    read: listPage(api.listRewardStoreOrders as unknown as ListFn, {}),
  },
  {
    name: 'orders_get',
    title: 'Read a rewards store order',
    operationId: 'getRewardStoreOrder',
    description: 'One store order by id: its reference (SVC-…), status, gift, coin price, carrier and tracking, and why it was cancelled. For its history of events use inspect.',
    read: async (call, args) => withNames((await api.getRewardStoreOrder(call.client, text(args, 'orderId')!, { signal: call.signal })).body as unknown as Record<string, unknown>, await call.names()),
  },
  {
    name: 'events_list',
    title: 'Read the event feed',
    operationId: 'listEvents',
    description: `The event feed (link and order events, kept 30 days), oldest first, in the order the service saved them. ${LIST_HINT} For counts over time use events_stats; for one record's events use inspect.`,
    read: listPage(api.listEvents as unknown as ListFn),
  },
];

export async function apiReadTools(): Promise<Tool[]> {
  return Promise.all(
    SPECS.map(async (spec): Promise<Tool> => {
      const input = await operationInput(spec.operationId);
      return {
        name: spec.name,
        title: spec.title,
        description: spec.description,
        schema: objectSchema(input.schema.properties ?? {}, input.schema.required),
        write: false,
        hints: READ_ONLY,
        run: (args, call) => spec.read(call, args, input),
      };
    }),
  );
}
