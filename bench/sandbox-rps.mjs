// Requests per second of the sandbox on GET /me and GET /personal-links (concurrency 16).
// Run: npm run build && node bench/sandbox-rps.mjs
import { getJson, startSandbox } from './sandbox-common.mjs';

const REQUESTS = 2_000;
const CONCURRENCY = 16;

async function rps(url, apiKey) {
  let next = 0;
  const worker = async () => {
    while (next < REQUESTS) {
      next++;
      await getJson(url, apiKey);
    }
  };
  for (let i = 0; i < 200; i++) await getJson(url, apiKey); // warm up
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return REQUESTS / ((performance.now() - started) / 1000);
}

const sandbox = await startSandbox({ bulkLinks: 1_000 });
try {
  for (const path of ['/me', '/personal-links']) {
    const rate = await rps(`${sandbox.info.baseUrl}${path}`, sandbox.apiKey);
    console.log(`GET ${path.padEnd(16)} ${rate.toFixed(0)} requests/s (${REQUESTS} requests, concurrency ${CONCURRENCY})`);
  }
} finally {
  await sandbox.stop();
}
