// `svc links ls --all` paging a sandbox of 20,000 links (SVC_SANDBOX_BULK_LINKS) at most 1.0× a bare
// Node pager (median wall time; ratios of runs paired in the same round), and flat memory: peak RSS
// about the same at 20,000 and at 100,000 links (and under 150 MB).
import { fileURLToPath } from 'node:url';
import { BIN, against, compare, fmt, machine, peakRssMb, report, startSandbox } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 5);
const pager = fileURLToPath(new URL('./bare/pager.mjs', import.meta.url));
for (const size of [20_000, 100_000]) {
  const sandbox = await startSandbox({ bulkLinks: size });
  try {
    const env = { SVC_BASE_URL: sandbox.info.baseUrl, SVC_API_KEY: sandbox.apiKey, SVC_CONFIG_DIR: '/tmp/svc-bench-config' };
    const rows = [];
    if (size === 20_000) {
      const { medians, ratios } = compare({ bare: { args: [pager], env }, svc: { args: [BIN, 'links', 'ls', '--all'], env } }, runs, 'bare');
      rows.push(['bare Node pager', fmt(medians.bare)], ['svc links ls --all', `${fmt(medians.svc)}  ${against(ratios.svc, 1)}`]);
    }
    rows.push(['svc links ls --all peak RSS', `${(await peakRssMb([BIN, 'links', 'ls', '--all'], env)).toFixed(0)} MB (target < 150 MB)`]);
    report(`links ls --all over ${size.toLocaleString('en-US')}+ links (${runs} runs; ${machine()})`, rows);
  } finally {
    await sandbox.stop();
  }
}
