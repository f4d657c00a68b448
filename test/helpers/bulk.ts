/**
 * What the `links create --from-file` tests of the commands layer start from: an in-process
 * sandbox, a directory for the config and the input files, the environment that points svc at the
 * sandbox with the `full` key, and a campaign with one brand (so a row needs no brandId). The
 * sandbox is closed after the test file.
 */
import { closeLater, tempDir } from './cleanup.js';
import { startSandbox, type TestSandbox } from '../sandbox/helpers.js';

export interface BulkSetup {
  sandbox: TestSandbox;
  dir: string;
  env: Record<string, string>;
  campaignId: string;
}

export async function startBulkSetup(): Promise<BulkSetup> {
  const sandbox = await startSandbox();
  closeLater(() => sandbox.close());
  const dir = tempDir();
  const env = { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sandbox.info.baseUrl, SVC_API_KEY: sandbox.apiKey('full') };
  const campaigns = (await sandbox.api('GET', '/campaigns')).body.items as { id: string; brandIds: string[] }[];
  const campaignId = campaigns.find((campaign) => campaign.brandIds.length === 1)!.id;
  return { sandbox, dir, env, campaignId };
}
