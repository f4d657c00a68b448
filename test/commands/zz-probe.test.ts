import { it } from 'vitest';
import { svc } from '../helpers/run.js';
import { startSandbox } from '../helpers/sandbox.js';
it('probe', async () => {
  const sb = await startSandbox();
  const env = sb.env();
  const campaigns = (await svc(['campaigns', 'ls'], { env })).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const campaign = campaigns.find((c) => c.brandIds.length > 1);
  const show = async (args: string[], input = '') => { const r = await svc(args, { env, input }); console.log(JSON.stringify(args).slice(0, 200), r.exitCode, '\nOUT:' + r.stdout.slice(0, 1500), '\nERR:' + r.stderr); };
  await show(['links', 'create', '--from-file', '-'], `campaignId,fullName,brandId,email,field:VIP tier,field:Marketing consent\n${campaign.id},"Lovelace, Ada",${campaign.brandIds[0]},ada@example.com,Gold,yes\n${campaign.id},,${campaign.brandIds[0]},,,\nnot-a-uuid,Bob,${campaign.brandIds[0]},,,\n`);
  await show(['links', 'create', '--from-file', '-'], 'campaignId,name\nx,y\n');
  await show(['links', 'create', '--from-file', '-', '--campaign', campaign.id]);
  await show(['links', 'create', '--from-file', '-'], 'campaignId,fullName\n');
  await show(['links', 'create', '--from-file', '-'], JSON.stringify({ campaignId: campaign.id, fullName: 'No Brand' }));
});
