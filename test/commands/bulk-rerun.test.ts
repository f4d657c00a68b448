/**
 * The end of `links create --from-file` against the sandbox (in-process): at a terminal the failed
 * rows are listed by the file line each starts on; a re-run of a file with one cell edited warns that
 * it made a second link and suggests an idempotencyKey column.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAtTerminal, svc } from '../helpers/run.js';
import { startBulkSetup } from '../helpers/bulk.js';

const { dir, env, campaignId } = await startBulkSetup();

/** stderr's lines without the progress bar's redraws. */
const stderrLines = (stderr: string) => stderr.split('\n').map((line) => line.split('\r\x1b[K').at(-1)!).filter((line) => line !== '');

describe('links create --from-file: the end of the run', () => {
  it('at a terminal, the failed rows by file line (row 2 is line 3) with their first error', async () => {
    const path = join(dir, 'mixed.csv');
    writeFileSync(path, ['campaignId,fullName', `${campaignId},Ada`, `${campaignId},`, `${campaignId},"Two`, 'Lines"', 'not-a-uuid,Bob', `${campaignId},Carol`].join('\n'));
    const result = await runAtTerminal(['links', 'create', '--from-file', path], env, 80);
    expect(result.exitCode).toBe(1);
    const lines = stderrLines(result.stderr);
    expect(lines.at(-4)).toMatch(/^created 3, replayed 0, failed 2 of 5 rows in \d+\.\ds$/);
    expect(lines.slice(-3)).toEqual([`failed rows, by line of ${path}:`, '  line 3: fullName: required', '  line 6: campaignId: not a valid id (expected a UUID): not-a-uuid']);
  });

  it('in a pipe, the summary alone (every row is on stdout)', async () => {
    const path = join(dir, 'one-bad.csv');
    writeFileSync(path, `campaignId,fullName\n${campaignId},\n`);
    const result = await svc(['links', 'create', '--from-file', path], { env });
    expect(result.stderr).toMatch(/^created 0, replayed 0, failed 1 of 1 rows in \d+\.\ds\n$/);
  });

  it('a re-run after one cell was edited warns that the row made a second link and suggests idempotencyKey', async () => {
    const path = join(dir, 'players.csv');
    const write = (grace: string) => writeFileSync(path, ['campaignId,fullName,message', `${campaignId},Ada,Hi`, `${campaignId},Grace,${grace}`, `${campaignId},Alan,Hi`].join('\r\n'));
    write('Hi');
    const first = await svc(['links', 'create', '--from-file', path], { env });
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toMatch(/^created 3, replayed 0, failed 0 of 3 rows in \d+\.\ds\n$/);
    write('Happy birthday');
    const again = await svc(['links', 'create', '--from-file', path], { env });
    expect(again.exitCode).toBe(0);
    expect(again.stderr.split('\n').slice(1)).toEqual([
      "warning: a row of this file was created now though an earlier run did the file's other rows (line 3): a row edited since that run made a second link for its player (cancel the old one with svc links cancel).",
      'hint: add an idempotencyKey column (one value per player) so a row keeps its one link whatever you edit.',
      '',
    ]);
    expect(again.stderr).toMatch(/^created 1, replayed 2, failed 0 of 3 rows in \d+\.\ds\n/);
    const third = await svc(['links', 'create', '--from-file', path], { env });
    expect(third.stderr).toMatch(/^created 0, replayed 3, failed 0 of 3 rows in \d+\.\ds\n$/);
  });
});
