// Target 2: `svc me` against the sandbox within 1.5× of a bare Node script that fetches /me.
import { fileURLToPath } from 'node:url';
import { BIN, compare, fmt, machine, ratio, report, startSandbox } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 30);
const sandbox = await startSandbox();
try {
  const env = { SVC_BASE_URL: sandbox.info.baseUrl, SVC_API_KEY: sandbox.apiKey, SVC_CONFIG_DIR: '/tmp/svc-bench-config' };
  const medians = compare(
    {
      bare: { args: [fileURLToPath(new URL('./bare/fetch-me.mjs', import.meta.url))], env },
      svc: { args: [BIN, 'me'], env },
    },
    runs,
  );
  report(`svc me (${runs} runs each, interleaved; ${machine()})`, [
    ['bare Node fetch of /me', fmt(medians.bare)],
    ['svc me', `${fmt(medians.svc)}  ${ratio(medians.svc, medians.bare)} (target ≤ 1.50×)`],
  ]);
} finally {
  await sandbox.stop();
}
