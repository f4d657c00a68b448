// Stress: `svc links create --from-file` of 200 rows under ~25% injected faults (errors, dropped
// connections, 429s). Each run must add exactly +200 links (one per row), print rows 1..200 once
// each and in order, and exit 0; running the same file again adds nothing. A file of 199 good rows
// and 1 bad one adds exactly 199, reports that row ok:false and exits 1.
//   SVC_BIN=/tmp/svc-stress/bin/svc.js node bench/stress-bulk.mjs [--runs 5] [--rows 200]
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checks, listAll, runSvc, startSandbox, tempDir } from './stress-lib.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, rows: { type: 'string', default: '200' } } });
const RUNS = Number(values.runs);
const ROWS = Number(values.rows);
const FAULTS = { errorRate: 0.15, resetRate: 0.05, rateLimitRate: 0.05 };

const result = checks('stress-bulk');
const sandbox = await startSandbox();
const dir = tempDir();
try {
  const env = { SVC_CONFIG_DIR: dir, SVC_API_KEY: sandbox.key('full').apiKey, SVC_BASE_URL: sandbox.baseUrl };
  const campaigns = await listAll(sandbox, '/campaigns?status=ACTIVE');
  const campaign = campaigns.find((c) => c.brandIds.length > 1 && !c.expiresAt) ?? campaigns[0];
  // A link holds no name; each row's unique "Player ID" custom-field answer tells its link apart.
  const playerField = (await sandbox.api('/me')).tenant.customFields.find((f) => f.type === 'TEXT');
  const playerId = (link) => link.customFields.find((answer) => answer.fieldId === playerField.id)?.textValue ?? null;
  const names = async () => (await listAll(sandbox, '/personal-links')).map(playerId);

  // CSV with quoting (a comma and a quote in some names), a brand column, and a message.
  const writeCsv = (file, tag, bad) => {
    const lines = [`campaignId,fullName,brandId,message,field:${playerField.label}`];
    for (let row = 1; row <= ROWS; row++) {
      const name = row % 17 === 0 ? `"${tag} ${row}, ""quoted"""` : `${tag} ${row}`;
      const campaignId = bad === row ? 'not-a-uuid' : campaign.id;
      lines.push(`${campaignId},${name},${campaign.brandIds[row % campaign.brandIds.length]},hello ${row},${tag}-${row}`);
    }
    writeFileSync(join(dir, file), `${lines.join('\n')}\n`);
    return join(dir, file);
  };
  const expectedName = (tag, row) => `${tag}-${row}`;

  const bulk = async (label, file, { tag, bad, expectAdded, expectExit }) => {
    const before = (await names()).length;
    await sandbox.admin('PUT', '/faults', FAULTS);
    const started = performance.now();
    const run = await runSvc(['links', 'create', '--from-file', file], { env });
    const seconds = (performance.now() - started) / 1000;
    await sandbox.admin('PUT', '/faults', {});
    const allNames = await names();
    const added = allNames.length - before;
    result.check(`${label}: exit ${expectExit}`, run.code === expectExit, `exit ${run.code}: ${run.stderr.split('\n').slice(-3).join(' | ')}`);
    result.check(`${label}: exactly +${expectAdded} links`, added === expectAdded, `+${added}`);
    let lines = [];
    try {
      lines = run.stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
    } catch (error) {
      result.check(`${label}: stdout is JSON lines`, false, error.message);
    }
    const rowsInOrder = lines.length === ROWS && lines.every((line, i) => line.row === i + 1);
    result.check(`${label}: rows 1..${ROWS} once each, in order`, rowsInOrder, `${lines.length} lines; first out of place: ${JSON.stringify(lines.find((l, i) => l.row !== i + 1))?.slice(0, 100)}`);
    const failedRows = lines.filter((line) => !line.ok).map((line) => line.row);
    const wantFailed = bad ? [bad] : [];
    result.check(`${label}: failed rows ${JSON.stringify(wantFailed)}`, JSON.stringify(failedRows) === JSON.stringify(wantFailed), `failed ${JSON.stringify(failedRows.slice(0, 10))}: ${JSON.stringify(lines.find((l) => !l.ok && l.row !== bad)?.error)?.slice(0, 200)}`);
    // One link per good row: each expected name exists exactly once, and each ok line is that link.
    const counts = new Map();
    for (const name of allNames) counts.set(name, (counts.get(name) ?? 0) + 1);
    const wrong = [];
    for (let row = 1; row <= ROWS; row++) {
      const want = row === bad ? 0 : 1;
      if ((counts.get(expectedName(tag, row)) ?? 0) !== want) wrong.push(`${row}×${counts.get(expectedName(tag, row)) ?? 0}`);
      const line = lines[row - 1];
      if (line?.ok && playerId(line.link) !== expectedName(tag, row)) wrong.push(`row ${row} printed ${playerId(line.link)}`);
    }
    result.check(`${label}: exactly one link per good row, none for the bad row`, wrong.length === 0, wrong.slice(0, 8).join(', '));
    if (bad) result.check(`${label}: the bad row reports a problem naming campaignId`, JSON.stringify(lines[bad - 1]?.error ?? {}).includes('campaignId'), JSON.stringify(lines[bad - 1])?.slice(0, 200));
    result.figure(`${label}`, `${seconds.toFixed(1)} s, +${added} links, ${run.stderr.trim().split('\n').pop()}`);
    return run;
  };

  for (let i = 1; i <= RUNS; i++) {
    const file = writeCsv(`run${i}.csv`, `Bulk${i}`);
    await bulk(`run ${i}`, file, { tag: `Bulk${i}`, expectAdded: ROWS, expectExit: 0 });
    if (i === 1 || i === RUNS) {
      const again = await bulk(`run ${i} again (same file)`, file, { tag: `Bulk${i}`, expectAdded: 0, expectExit: 0 });
      result.check(`run ${i} again: the summary counts every row as replayed`, /created 0, replayed \d+/.test(again.stderr), again.stderr.trim().split('\n').pop());
    }
  }
  const bad = 1 + Math.floor(Math.random() * ROWS);
  const badFile = writeCsv('bad.csv', 'Bad', bad);
  await bulk(`${ROWS - 1} good + bad row ${bad}`, badFile, { tag: 'Bad', bad, expectAdded: ROWS - 1, expectExit: 1 });
  await bulk(`${ROWS - 1} good + bad row ${bad}, again`, badFile, { tag: 'Bad', bad, expectAdded: 0, expectExit: 1 });
} finally {
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
}
result.finish();
