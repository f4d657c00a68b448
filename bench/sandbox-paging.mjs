// Paging cost must not grow with the data: a page of 100 from 100,000 links within 1.5x of the
// same page from 1,000 links, and 100,000 links in under 300 MB.
// Run: npm run build && node bench/sandbox-paging.mjs
import { getJson, median, startSandbox } from './sandbox-common.mjs';

const ROUNDS = 300;

async function timePage(url, apiKey) {
  for (let i = 0; i < 30; i++) await getJson(url, apiKey); // warm up
  const times = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    const page = await getJson(url, apiKey);
    times.push(performance.now() - started);
    if (page.items.length !== 100) throw new Error(`expected 100 items, got ${page.items.length}`);
  }
  return median(times);
}

async function measure(links) {
  const sandbox = await startSandbox({ bulkLinks: links });
  try {
    const base = `${sandbox.info.baseUrl}/personal-links?limit=100`;
    // Follow cursors to the middle of the list first: the deep page must cost the same as the first.
    let cursor = null;
    for (let i = 0; i < Math.floor(links / 200); i++) {
      cursor = (await getJson(cursor ? `${base}&after=${cursor}` : base, sandbox.apiKey)).nextCursor;
    }
    const first = await timePage(base, sandbox.apiKey);
    const deep = await timePage(`${base}&after=${cursor}`, sandbox.apiKey);
    return { links, firstPageMs: first, middlePageMs: deep, rssMb: sandbox.rssMb() };
  } finally {
    await sandbox.stop();
  }
}

const small = await measure(1_000);
const large = await measure(100_000);
const ratioFirst = large.firstPageMs / small.firstPageMs;
const ratioMiddle = large.middlePageMs / small.middlePageMs;
for (const r of [small, large]) {
  console.log(`${String(r.links).padStart(7)} links: first page ${r.firstPageMs.toFixed(2)} ms, middle page ${r.middlePageMs.toFixed(2)} ms, RSS ${r.rssMb.toFixed(0)} MB`);
}
console.log(`ratio 100k/1k: first page ${ratioFirst.toFixed(2)}x, middle page ${ratioMiddle.toFixed(2)}x (limit 1.5x)`);
console.log(`RSS at 100,000 links: ${large.rssMb.toFixed(0)} MB (limit 300 MB)`);
const ok = ratioFirst <= 1.5 && ratioMiddle <= 1.5 && large.rssMb < 300;
console.log(ok ? 'PASS' : 'FAIL');
process.exitCode = ok ? 0 : 1;
