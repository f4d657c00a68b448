/**
 * The spinner: shown on stderr only when a person watches a terminal that has columns, and for a
 * network wait only once it has lasted SPINNER_DELAY_MS. Fake timers: no real waiting.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PassThrough } from 'node:stream';
import { IO, SPINNER_DELAY_MS, type IOStreams } from '../../src/core/io.js';

function terminal(options: { isTTY: boolean; columns: number }) {
  const written: string[] = [];
  const stream = Object.assign(new PassThrough(), {
    ...options,
    cursorTo: () => true,
    moveCursor: () => true,
    clearLine: () => true,
  });
  const write = stream.write.bind(stream);
  stream.write = ((chunk: string, ...rest: never[]) => {
    written.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof stream.write;
  return { stream, written };
}

function io(stderr: { isTTY: boolean; columns: number }) {
  const err = terminal(stderr);
  const out = terminal({ isTTY: true, columns: 80 });
  const streams = { stdin: new PassThrough(), stdout: out.stream, stderr: err.stream, env: {} } as unknown as IOStreams;
  return { io: new IO(streams), stderr: err.written };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the network-wait spinner', () => {
  it('appears once a call has waited 300 ms at a terminal, and is gone when the answer comes', async () => {
    const { io: subject, stderr } = io({ isTTY: true, columns: 80 });
    const end = subject.networkWait();
    await vi.advanceTimersByTimeAsync(SPINNER_DELAY_MS - 1);
    expect(stderr).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await vi.waitFor(() => expect(stderr.join('')).toContain('Waiting for the API…'));
    end();
    await vi.advanceTimersByTimeAsync(0);
    const afterStop = stderr.length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(stderr.length).toBe(afterStop);
  });

  it('shows nothing for an answer faster than 300 ms', async () => {
    const { io: subject, stderr } = io({ isTTY: true, columns: 80 });
    const end = subject.networkWait();
    await vi.advanceTimersByTimeAsync(SPINNER_DELAY_MS - 1);
    end();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(stderr).toEqual([]);
  });

  it('stays until the last of several overlapping calls ends', async () => {
    const { io: subject, stderr } = io({ isTTY: true, columns: 80 });
    const first = subject.networkWait();
    const second = subject.networkWait();
    await vi.advanceTimersByTimeAsync(SPINNER_DELAY_MS);
    await vi.waitFor(() => expect(stderr.join('')).toContain('Waiting for the API…'));
    first();
    const before = stderr.length;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(stderr.length).toBeGreaterThan(before);
    second();
    await vi.advanceTimersByTimeAsync(0);
    const afterStop = stderr.length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(stderr.length).toBe(afterStop);
  });

  it('never writes when stderr is not a terminal', async () => {
    const { io: subject, stderr } = io({ isTTY: false, columns: 80 });
    subject.networkWait();
    const explicit = await subject.spinner('Sending');
    await vi.advanceTimersByTimeAsync(60_000);
    explicit.stop();
    expect(stderr).toEqual([]);
  });

  it('never writes on a terminal of 0 columns', async () => {
    const { io: subject, stderr } = io({ isTTY: true, columns: 0 });
    expect(subject.showProgress()).toBe(false);
    subject.networkWait();
    const explicit = await subject.spinner('Sending');
    await vi.advanceTimersByTimeAsync(60_000);
    explicit.stop();
    expect(stderr).toEqual([]);
  });

  it('stays off while a command draws its own progress', async () => {
    const { io: subject, stderr } = io({ isTTY: true, columns: 80 });
    expect(subject.showProgress()).toBe(true);
    subject.networkWait();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(stderr).toEqual([]);
  });
});
