/** --fields and -o csv on the list and get/show commands, against a strict API double. */
import { describe, expect, it } from 'vitest';
import { ApiDouble, doubleEachTest } from '../helpers/double.js';
import { runInProcess } from '../helpers/run.js';
import { tempConfigDir } from '../helpers/svc.js';

const KEY = 'svc_live_testkey0000000000wxyz';
const ID = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';
const order = { id: ID, reference: '+1 SUM(A1)', status: 'SENT', coinPrice: '1100', currency: { name: 'Coins', symbol: '★' }, shipment: { carrier: 'DHL', trackingReference: null, trackingUrl: null } };

let api: ApiDouble;
let env: Record<string, string>;
doubleEachTest((double) => {
  api = double;
  env = { SVC_API_KEY: KEY, SVC_BASE_URL: api.baseUrl, SVC_CONFIG_DIR: tempConfigDir() };
});
const run = (...argv: string[]) => runInProcess(argv, env);

describe('--fields and -o csv', () => {
  it('orders ls: CSV of the chosen dotted paths, guarded; JSON lines keep the nesting', async () => {
    api.on('GET /reward-store-orders?limit=100', { body: { items: [order], nextCursor: null } });
    const csv = await run('-o', 'csv', 'orders', 'ls', '--all', '--fields', 'id,reference,currency.name,shipment.carrier');
    expect(csv).toEqual({ exitCode: 0, stdout: `id,reference,currency.name,shipment.carrier\n${ID},'+1 SUM(A1),Coins,DHL\n`, stderr: '' });
    const jsonl = await run('orders', 'ls', '--all', '--fields', 'status,currency.symbol');
    expect(jsonl).toEqual({ exitCode: 0, stdout: '{"status":"SENT","currency":{"symbol":"★"}}\n', stderr: '' });
  });

  it('links ls -o csv without --fields: every field of a link as a column, in the API order', async () => {
    const link = { id: ID, campaignId: null, selection: 'CATALOG', brandId: 'b', status: 'ACTIVE', claimUrl: 'https://x.test/c', customFields: [{ fieldId: 'f', textValue: '=1', checked: null }], expiresAt: null, createdAt: 't1', approvedAt: null, claimedAt: null, cancelledAt: null, updatedAt: 't2' };
    api.on('GET /personal-links', { body: { items: [link], nextCursor: 'next' } });
    const result = await run('-o', 'csv', 'links', 'ls');
    expect(result.stdout).toBe(
      'id,campaignId,selection,brandId,status,claimUrl,customFields,expiresAt,createdAt,approvedAt,claimedAt,cancelledAt,updatedAt\n' +
        `${ID},,CATALOG,b,ACTIVE,https://x.test/c,"[{""fieldId"":""f"",""textValue"":""=1"",""checked"":null}]",,t1,,,,t2\n`,
    );
  });

  it('orders get and me: the chosen fields of one object', async () => {
    api.on(`GET /reward-store-orders/${ID}`, { body: order });
    expect((await run('orders', 'get', ID, '--fields', 'reference,shipment')).stdout).toBe('{"reference":"+1 SUM(A1)","shipment":{"carrier":"DHL","trackingReference":null,"trackingUrl":null}}\n');
    expect((await run('-o', 'csv', 'orders', 'get', ID, '--fields', 'id,status')).stdout).toBe(`id,status\n${ID},SENT\n`);
    api.on('GET /me', { body: { tenant: { id: 't', locales: ['en-US'], approvalRequired: false, customFields: [] }, key: { name: 'k', scopes: ['REWARD_STORES'], webhookUrl: null }, brands: [], environment: 'production' } });
    expect((await run('me', '--fields', 'key.name,environment')).stdout).toBe('{"key":{"name":"k"},"environment":"production"}\n');
  });

  it('with -o csv an API error is the person\'s one line, not a JSON problem', async () => {
    api.on(`GET /reward-store-orders/${ID}`, { status: 404, body: { status: 404, code: 'not_found', detail: 'no such order' } });
    expect(await run('-o', 'csv', 'orders', 'get', ID)).toEqual({ exitCode: 3, stdout: '', stderr: 'error: not_found: no such order\n' });
  });

  it('an unknown field is a usage error naming the valid ones, before any request', async () => {
    const result = await run('campaigns', 'ls', '--fields', 'id,title');
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: 'error: usage_error: --fields: unknown field title; valid fields of a campaign: id, name, status, brandIds, expiresAt\n' });
    const nested = await run('stores', 'show', ID, '--brand', ID, '--country', 'DE', '--fields', 'currency.code');
    expect(nested.exitCode).toBe(2);
    expect(nested.stderr).toMatch(/^error: usage_error: --fields: unknown field currency\.code; valid fields of a store read: id, name, .*brand\.id, brand\.name, currency, currency\.name, currency\.symbol, .*\n$/);
    expect(api.requests).toEqual([]);
  });
});
