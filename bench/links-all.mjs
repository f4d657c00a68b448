// Target 3: `svc links ls --all` over 20,000 links within 1.3× of a bare Node pager; peak RSS
// under 150 MB at 20,000 and at 100,000 links.
import { fileURLToPath } from 'node:url';
import { BIN, compare, fmt, machine, peakRssMb, ratio, report, startSandbox } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 5);
const pager = fileURLToPath(new URL('./bare/pager.mjs', import.meta.url));
for (const size of [20_000, 100_000]) {
  const sandbox = await startSandbox({ bulkLinks: size });
  try {
    const env = { SVC_BASE_URL: sandbox.info.baseUrl, SVC_API_KEY: sandbox.apiKey, SVC_CONFIG_DIR: '/tmp/svc-bench-config' };
    const rows = [];
    if (size === 20_000) {
      const medians = compare({ bare: { args: [pager], env }, svc: { args: [BIN, 'links', 'ls', '--all'], env } }, runs);
      rows.push(['bare Node pager', fmt(medians.bare)], ['svc links ls --all', `${fmt(medians.svc)}  ${ratio(medians.svc, medians.bare)} (target ≤ 1.30×)`]);
    }
    rows.push(['svc links ls --all peak RSS', `${(await peakRssMb([BIN, 'links', 'ls', '--all'], env)).toFixed(0)} MB (target < 150 MB)`]);
    report(`links ls --all over ${size.toLocaleString('en-US')}+ links (${runs} runs; ${machine()})`, rows);
  } finally {
    await sandbox.stop();
  }
}
