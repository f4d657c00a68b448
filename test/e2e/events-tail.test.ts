/**
 * `svc events tail` as a process: runs killed (SIGKILL) at random moments and resumed skip no event,
 * and --follow shows a new event at its next poll, then Ctrl-C saves the cursor and exits 130.
 * The sandbox runs in the test process; svc is the real bin/svc.
 */
import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { closeLater, tempDir } from '../helpers/cleanup.js';
import { svc } from '../helpers/run.js';
import { addEvents as addEventsTo, feedLines as feedLinesOf, startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { BIN, stopChild } from '../helpers/svc.js';

let sandbox: InProcessSandbox;
/** Every request the sandbox answered, in order. */
const requests: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ log: (line) => requests.push(line) });
});

const addEvents = (count: number) => addEventsTo(sandbox, count);
const feedLines = () => feedLinesOf(sandbox);
const idsOf = (lines: string[]) => lines.map((line) => (JSON.parse(line) as { id: string }).id);
const linesOf = (stdout: string) => stdout.split('\n').filter((line) => line !== '');
const envWith = (configDir: string) => ({ ...sandbox.env('full'), SVC_CONFIG_DIR: configDir });

describe('events tail', () => {
  it('--resume after runs killed at random moments skips no event', async () => {
    await addEvents(150);
    const expected = idsOf(await feedLines());
    const env = envWith(tempDir());
    const outputs: string[] = [];
    for (let run = 0; run < 8; run++) {
      outputs.push(await runUntilKilled(['events', 'tail', '--resume', '--limit', '3'], env, Math.random() * 120));
    }
    const final = await svc(['events', 'tail', '--resume', '--limit', '3'], { env });
    expect(final.exitCode).toBe(0);
    outputs.push(final.stdout);
    // A line cut by the kill is not an event; every complete line is.
    const seen = outputs.flatMap((stdout) => linesOf(stdout).filter(isJson)).map((line) => JSON.parse(line).id as string);
    const union = seen.filter((id, index) => seen.indexOf(id) === index);
    expect(union).toEqual(expected);
  });

  it('--follow prints a new event at its next poll, and Ctrl-C saves the cursor and exits 130', async () => {
    const configDir = tempDir();
    const before = await feedLines();
    const child = spawn(process.execPath, [BIN, 'events', 'tail', '--follow', '--interval', '0.5'], { env: { ...process.env, ...envWith(configDir) } });
    closeLater(() => stopChild(child));
    const out = lineCollector(child.stdout!);
    await out.waitFor((lines) => lines.length >= before.length);
    expect(out.lines).toEqual(before);
    await addEvents(1);
    const polls = () => requests.filter((line) => line.startsWith('GET /v1/events?')).length;
    const pollsBefore = polls();
    await out.waitFor((lines) => lines.length === before.length + 1);
    // Shown by the next poll (or the one after, when a poll was already on its way as it was added).
    expect(polls() - pollsBefore).toBeGreaterThanOrEqual(1);
    expect(polls() - pollsBefore).toBeLessThanOrEqual(2);
    const newest = (await feedLines()).at(-1);
    expect(out.lines.at(-1)).toBe(newest);
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGINT');
    });
    expect(code).toBe(130);
    const resumed = await svc(['events', 'tail', '--resume'], { env: envWith(configDir) });
    expect(resumed).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });
});

function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

/** Runs svc and SIGKILLs it `afterOutputMs` after its first output (or when it ends by itself). */
function runUntilKilled(args: string[], env: Record<string, string>, afterOutputMs: number): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      timer ??= setTimeout(() => child.kill('SIGKILL'), afterOutputMs);
    });
    child.once('close', () => {
      clearTimeout(timer);
      resolve(stdout);
    });
  });
}

function lineCollector(stream: NodeJS.ReadableStream) {
  const lines: string[] = [];
  let partial = '';
  const waiters: (() => void)[] = [];
  stream.on('data', (chunk) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    waiters.forEach((wake) => wake());
  });
  return {
    lines,
    waitFor(done: (lines: string[]) => boolean, timeoutMs = 10_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out; got ${lines.length} lines`)), timeoutMs);
        const check = () => {
          if (!done(lines)) return;
          clearTimeout(timer);
          resolve();
        };
        waiters.push(check);
        check();
      });
    },
  };
}
