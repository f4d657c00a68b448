// `svc me` against a running sandbox (a real request, a real answer printed) within 1.15× of a bare
// Node script that fetches /me and prints it (median wall time; ratios of runs paired in the same round).
import { fileURLToPath } from 'node:url';
import { BIN, against, compare, fmt, machine, report, startSandbox } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 30);
const sandbox = await startSandbox();
try {
  const env = { SVC_BASE_URL: sandbox.info.baseUrl, SVC_API_KEY: sandbox.apiKey, SVC_CONFIG_DIR: '/tmp/svc-bench-config' };
  const { medians, ratios } = compare(
    {
      bare: { args: [fileURLToPath(new URL('./bare/fetch-me.mjs', import.meta.url))], env },
      svc: { args: [BIN, 'me'], env },
    },
    runs,
    'bare',
  );
  report(`svc me (${runs} runs each, interleaved; ${machine()})`, [
    ['bare Node fetch of /me', fmt(medians.bare)],
    ['svc me', `${fmt(medians.svc)}  ${against(ratios.svc, 1.15)}`],
  ]);
} finally {
  await sandbox.stop();
}
