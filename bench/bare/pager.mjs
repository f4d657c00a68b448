// Baseline for `svc links ls --all`: a fetch loop writing JSON lines, pages of 100.
let after = '';
for (;;) {
  const url = `${process.env.SVC_BASE_URL}/personal-links?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`;
  const page = await (await fetch(url, { headers: { authorization: `Bearer ${process.env.SVC_API_KEY}` } })).json();
  if (page.items.length > 0) process.stdout.write(page.items.map((item) => JSON.stringify(item)).join('\n') + '\n');
  if (!page.nextCursor || page.items.length === 0) break;
  after = page.nextCursor;
}
