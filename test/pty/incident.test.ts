/**
 * `events tail --follow` during an incident, in a real terminal (tmux) at 80 columns: the outage is
 * one line with the time it started, fitted to the width, that never quotes the server's advice for
 * writes (every call fails with the sandbox's injected 500 "retry with the same Idempotency-Key", or
 * its proxy's 502); when the sandbox answers again, one line with the time and the outage's length.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startTerminal } from '../helpers/pty.js';
import { addEvents, startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';

let sandbox: InProcessSandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
  await addEvents(sandbox, 2);
});

const TIME = String.raw`\d\d:\d\d:\d\d UTC`;

describe('incident lines at 80 columns', () => {
  it('one outage line with its time, no write advice, then its end with the time and the length', async () => {
    const terminal = await startTerminal(['events', 'tail', '--follow', '--interval', '1'], { ...sandbox.env('full'), NO_COLOR: '1' }, { columns: 80, rows: 24 });
    await terminal.waitFor('Caught up; polling every 1s');
    expect((await sandbox.admin('PUT', '/faults', { errorRate: 1 })).status).toBe(200);
    const down = await terminal.waitFor(/feed unavailable/);
    expect((await sandbox.admin('PUT', '/faults', { errorRate: 0 })).status).toBe(200);
    const history = (await terminal.waitFor(/feed reachable again/)).split('\n').map((line) => line.trimEnd());
    const outage = history.filter((line) => line.includes('feed unavailable'));
    expect(outage).toHaveLength(1);
    expect(outage[0]).toMatch(new RegExp(`^… ${TIME} feed unavailable, retrying with backoff: .+`));
    expect(outage[0].length).toBeLessThanOrEqual(80);
    const since = /^… (\d\d:\d\d:\d\d UTC)/.exec(outage[0])![1];
    const back = history.filter((line) => line.includes('feed reachable again'));
    expect(back).toHaveLength(1);
    expect(back[0]).toMatch(new RegExp(`^… ${TIME} feed reachable again after \\d+s \\(unavailable since ${since}\\)$`));
    expect(back[0].length).toBeLessThanOrEqual(80);
    // The lines follow each other: nothing else was said during the outage.
    expect(history.indexOf(back[0])).toBe(history.indexOf(outage[0]) + 1);
    expect(`${down}\n${history.join('\n')}`).not.toMatch(/idempotency/i);
  });
});
