/**
 * The process's stdout written with plain system calls while it is a file, the null device or a
 * pipe (core/stdio.ts): what svc writes arrives whole and in order, a reader that went away fails
 * the write with EPIPE as Node's stream would, and a pipe is written through a non-blocking
 * descriptor of svc's own, so a lagging reader hands the rest to Node's stream instead of stopping
 * the run. Terminal facts come from the descriptor without Node's terminal module.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { DescriptorWriter, directWriter, isTerminal } from '../../src/core/stdio.js';
import { tempDir } from '../helpers/cleanup.js';

const opened: number[] = [];
afterEach(() => {
  for (const fd of opened.splice(0)) closeSync(fd);
});
const open = (path: string, flags: number) => {
  const fd = openSync(path, flags);
  opened.push(fd);
  return fd;
};

/** A named pipe: its read end, and its write end (non-blocking when asked). */
function fifo(nonBlockingWriter = false) {
  const path = join(tempDir(), 'pipe');
  execFileSync('mkfifo', [path]);
  const reader = open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = open(path, constants.O_WRONLY | (nonBlockingWriter ? constants.O_NONBLOCK : 0));
  return { reader, writer };
}

function drain(fd: number): string {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(65536);
  for (;;) {
    let n = 0;
    try {
      n = readSync(fd, buffer);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break;
      throw error;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

describe('DescriptorWriter', () => {
  it('writes strings and bytes to a file whole and in order, and calls back once written', async () => {
    const path = join(tempDir(), 'out.txt');
    const fd = open(path, constants.O_WRONLY | constants.O_CREAT);
    const writer = new DescriptorWriter(fd);
    const called: unknown[] = [];
    expect(writer.write('Zürich 🎁\n')).toBe(true);
    expect(writer.write(Buffer.from('bytes\n'), (error) => called.push(error))).toBe(true);
    expect(writer.write('', (error) => called.push(error))).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect({ text: readFileSync(path, 'utf8'), called, destroyed: writer.destroyed, isTTY: writer.isTTY }).toEqual({
      text: 'Zürich 🎁\nbytes\n',
      called: [null, null],
      destroyed: false,
      isTTY: false,
    });
  });

  it('a reader that went away: the write fails with EPIPE once as an error and close, later writes only to their callback', async () => {
    const { reader, writer: fd } = fifo();
    closeSync(opened.splice(opened.indexOf(reader), 1)[0]);
    const writer = new DescriptorWriter(fd);
    const events: string[] = [];
    writer.on('error', (error: NodeJS.ErrnoException) => events.push(`error ${error.code}`));
    writer.on('close', () => events.push('close'));
    const callbacks: string[] = [];
    expect(writer.write('lost\n', (error) => callbacks.push(`first ${(error as NodeJS.ErrnoException | null)?.code}`))).toBe(false);
    expect(writer.destroyed).toBe(true);
    expect(writer.write('after\n', (error) => callbacks.push(`second ${(error as NodeJS.ErrnoException | null)?.code}`))).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect({ events, callbacks }).toEqual({ events: ['error EPIPE', 'close'], callbacks: ['first EPIPE', 'second EPIPE'] });
  });

  it('a descriptor that would make a write wait: the rest of that write and every later one go to the stream it falls back to', async () => {
    const { reader, writer: fd } = fifo(true);
    let handed = '';
    const fallback = new Writable({
      write(chunk, _encoding, done) {
        handed += chunk;
        done();
      },
    });
    const writer = new DescriptorWriter(fd, () => fallback);
    // More than a pipe holds: the descriptor takes what fits, the fallback the rest.
    const big = `${'x'.repeat(1023)}\n`.repeat(1024);
    writer.write(big);
    writer.write('later\n');
    await new Promise((resolve) => setImmediate(resolve));
    const direct = drain(reader);
    expect(direct.length).toBeGreaterThan(0);
    expect(direct.length).toBeLessThan(big.length);
    expect(direct + handed).toBe(`${big}later\n`);
  });
});

/** A stream that keeps what it is given. */
function keeper() {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk;
      done();
    },
  });
  return { stream, text: () => text };
}

describe('directWriter (the writer svc picks for its stdout)', () => {
  it('a file and the null device: written directly, on that descriptor', () => {
    const file = open(join(tempDir(), 'f'), constants.O_WRONLY | constants.O_CREAT);
    const nul = open('/dev/null', constants.O_WRONLY);
    expect([directWriter(file)?.fd, directWriter(nul)?.fd]).toEqual([file, nul]);
  });

  it('a pipe whose reader lags: what fits goes in at once, the rest to Node\'s stream; the run never waits', async () => {
    // The write end is blocking, as a shell's pipe is: a write on it would wait for the reader.
    const { reader, writer: fd } = fifo();
    const fallback = keeper();
    const writer = directWriter(fd, () => fallback.stream)!;
    expect(writer.fd).not.toBe(fd);
    const big = `${'y'.repeat(1023)}\n`.repeat(1024);
    const started = performance.now();
    writer.write(big);
    writer.write('later\n');
    expect(performance.now() - started).toBeLessThan(5_000);
    await new Promise((resolve) => setImmediate(resolve));
    const direct = drain(reader);
    expect(direct.length).toBeGreaterThan(0);
    expect(direct + fallback.text()).toBe(`${big}later\n`);
  });

  it('a socket or a closed descriptor: Node\'s stream', async () => {
    const path = join(tempDir(), 'sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const client: Socket = connect(path);
    await new Promise((resolve) => client.once('connect', resolve));
    const fd = (client as unknown as { _handle: { fd: number } })._handle.fd;
    expect([directWriter(fd), directWriter(987654)]).toEqual([undefined, undefined]);
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('isTerminal', () => {
  it('a file, a pipe and the null device are no terminal; a closed descriptor is none either', () => {
    const file = open(join(tempDir(), 'f'), constants.O_WRONLY | constants.O_CREAT);
    const { writer } = fifo();
    const nul = open('/dev/null', constants.O_WRONLY);
    expect([isTerminal(file), isTerminal(writer), isTerminal(nul), isTerminal(987654)]).toEqual([false, false, false, false]);
  });
});
