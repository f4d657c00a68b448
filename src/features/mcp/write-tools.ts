/**
 * The write tools, listed only with `svc mcp --allow-write`: create a link, cancel a link, place an
 * order. Each sends an Idempotency-Key (the caller's, or one svc makes and returns: the same key
 * again replays the first answer, so a retried call creates nothing twice), and `dryRun: true`
 * returns the request it would send (key redacted) instead of sending it. No tool pays or marks a
 * refund: refunds stay in `svc refunds run` with its ledger.
 */
import { randomUUID } from 'node:crypto';
import { ApiClient, type ApiResponse } from '../../api/client.js';
import type { DryRunRequest } from '../../api/dry-run.js';
import * as api from '../../api/resources.js';
import { operationInput, type OperationInput } from './schema.js';
import { objectSchema, text, type Call, type Tool, type ToolHints } from './tool.js';

interface WriteSpec {
  name: string;
  title: string;
  operationId: string;
  description: string;
  hints: ToolHints;
  /** the member of the result that holds the API's answer */
  resultKey: 'link' | 'order';
  send(client: ApiClient, args: Record<string, unknown>, body: Record<string, unknown>, options: { idempotencyKey: string; signal: AbortSignal }): Promise<ApiResponse<unknown>>;
}

const DRY_RUN = { type: 'boolean', description: 'Return the request that would be sent ({method, url, headers, body}; key redacted) and send nothing.' };

const SPECS: WriteSpec[] = [
  {
    name: 'links_create',
    title: 'Create a personal gift link',
    operationId: 'createPersonalLink',
    description:
      "Creates a personal gift link for one player in an ACTIVE campaign (campaigns_list gives campaign ids) and returns it with its claimUrl to send. Pass the idempotencyKey returned by an earlier attempt when retrying: the link is then created once. dryRun: true shows the request without sending it.",
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    resultKey: 'link',
    send: (client, _args, body, options) => api.createPersonalLink(client, body as api.CreatePersonalLinkBody, options),
  },
  {
    name: 'links_cancel',
    title: 'Cancel a personal gift link',
    operationId: 'cancelPersonalLink',
    description:
      'Cancels a REQUESTED or ACTIVE personal link this key created, with a reason only the team sees; the player can no longer claim it. A CLAIMED or EXPIRED link cannot be cancelled (not_cancellable). Cancelling twice changes nothing. dryRun: true shows the request without sending it.',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    resultKey: 'link',
    send: (client, args, body, options) => api.cancelPersonalLink(client, text(args, 'linkId')!, body as api.CancelPersonalLinkBody, options),
  },
  {
    name: 'orders_place',
    title: 'Place a rewards store order',
    operationId: 'placeRewardStoreOrder',
    description:
      "Places an order for one gift from a LIVE store for a recipient; the operator then deducts the coin price from the player. coinPrice must be the price the player saw (stores_show gives it): a changed price is refused with price_changed and the current price, never charged silently. Pass the idempotencyKey returned by an earlier attempt when retrying: the order is then placed once. dryRun: true shows the request without sending it.",
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    resultKey: 'order',
    send: (client, _args, body, options) => api.placeRewardStoreOrder(client, body as api.PlaceRewardStoreOrderBody, options),
  },
];

function bodyOf(args: Record<string, unknown>, input: OperationInput): Record<string, unknown> {
  return Object.fromEntries(input.body.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
}

/** The request a client would send, caught instead of sent (nothing reaches the network). */
async function dryRunOf(spec: WriteSpec, call: Call, args: Record<string, unknown>, body: Record<string, unknown>, idempotencyKey: string): Promise<DryRunRequest> {
  let caught: DryRunRequest | undefined;
  const client = new ApiClient({ baseUrl: call.client.baseUrl, apiKey: 'redacted', dryRun: async (request) => void (caught = request) });
  await spec.send(client, args, body, { idempotencyKey, signal: call.signal });
  return caught!;
}

async function writeTool(spec: WriteSpec): Promise<Tool> {
  const input = await operationInput(spec.operationId);
  const properties = { ...input.schema.properties, dryRun: DRY_RUN };
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    schema: objectSchema(properties, input.schema.required),
    write: true,
    hints: spec.hints,
    async run(args, call) {
      const idempotencyKey = text(args, 'idempotencyKey') ?? randomUUID();
      const body = bodyOf(args, input);
      if (args.dryRun === true) return { dryRun: true, idempotencyKey, request: await dryRunOf(spec, call, args, body, idempotencyKey) };
      const response = await spec.send(call.client, args, body, { idempotencyKey, signal: call.signal });
      return { [spec.resultKey]: response.body, idempotencyKey, replayed: response.replayed };
    },
  };
}

export function writeTools(): Promise<Tool[]> {
  return Promise.all(SPECS.map(writeTool));
}
