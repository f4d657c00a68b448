/**
 * The process's own streams for a run. Node makes `process.stdout` on first use, and for a pipe or
 * a socket that means a net.Socket and the stream and network modules behind it: more than all of
 * svc's own start-up work in a command that only prints a few lines. So while standard output is a
 * file, the null device or a pipe (a script reading svc), svc writes it with plain system calls
 * instead, never making the run wait on a reader; on a terminal or a socket it is Node's stream, as
 * always. stdin and stderr are Node's, made when first used.
 */
import { EventEmitter } from 'node:events';
import { closeSync, constants, fstatSync, openSync, statSync, writeSync, type Stats } from 'node:fs';
import { isatty } from 'node:tty';
import { outputClosedError } from './abort.js';

const STDOUT_FD = 1;

/**
 * Whether descriptor `fd` is a terminal, asked without loading Node's terminal module unless it may
 * be one: a terminal is a character device, and a file, a pipe, a socket or the null device is none.
 */
export function isTerminal(fd: number): boolean {
  try {
    const stats = fstatSync(fd);
    return stats.isCharacterDevice() && !isNullDevice(stats) && isatty(fd);
  } catch {
    return false;
  }
}

/** the null device's device number, read once (undefined: none) */
let nullDevice: number | null | undefined = null;

function isNullDevice(stats: Stats): boolean {
  if (process.platform === 'win32') return false;
  if (nullDevice === null) {
    const nul = statSync('/dev/null', { throwIfNoEntry: false });
    nullDevice = nul?.isCharacterDevice() ? nul.rdev : undefined;
  }
  return nullDevice !== undefined && nullDevice === stats.rdev;
}

/** The streams of a run of this process (they serve as the run's IOStreams). */
export interface ProcessStreams {
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  processStreams: true;
}

/** The streams of this process, `stdout` written directly while it is no terminal. */
export function processStreams(): ProcessStreams {
  let stdout: NodeJS.WriteStream | undefined;
  return {
    get stdin() {
      return process.stdin;
    },
    get stdout() {
      stdout ??= (directWriter(STDOUT_FD) as unknown as NodeJS.WriteStream | undefined) ?? process.stdout;
      return stdout;
    },
    get stderr() {
      return process.stderr;
    },
    env: process.env,
    processStreams: true,
  };
}

/** Whether these are a run's process streams (their terminal facts are read from the descriptors). */
export function isProcessStreams(streams: object): boolean {
  return (streams as { processStreams?: unknown }).processStreams === true;
}

/**
 * A writer for descriptor `fd` that writes it directly, or undefined where Node's stream is needed.
 * A file or the null device is written with blocking writes, as Node's own stream for them does (no
 * reader to wait for). A pipe is written through a descriptor of svc's own for the same pipe, opened
 * non-blocking (Linux names it under /proc): a write never waits, and when the reader lags, Node's
 * stream takes the rest and waits without stopping the run (signals, servers, timers go on).
 */
export function directWriter(fd: number, fallback: () => NodeJS.WritableStream = () => process.stdout): DescriptorWriter | undefined {
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch {
    return undefined;
  }
  if (stats.isFile() || (stats.isCharacterDevice() && isNullDevice(stats))) return new DescriptorWriter(fd, fallback);
  if (!stats.isFIFO() || process.platform !== 'linux') return undefined;
  let own: number | undefined;
  try {
    own = openSync(`/proc/self/fd/${fd}`, constants.O_WRONLY | constants.O_NONBLOCK);
    const opened = fstatSync(own);
    if (opened.dev === stats.dev && opened.ino === stats.ino) return new DescriptorWriter(own, fallback, true);
  } catch {
    // no /proc, or the pipe cannot be opened again: Node's stream
  }
  if (own !== undefined) closeSync(own);
  return undefined;
}

type Callback = (error?: Error | null) => void;

/**
 * A writable end of a descriptor, written with plain writes. It has what svc uses of a Writable:
 * write (true, or false when it failed), 'error' and 'close' once it fails, `destroyed`, end. A
 * reader that went away fails the write with EPIPE, as a stream's would. When a write would wait
 * (a non-blocking descriptor whose reader lags), the rest of it and every later write go to Node's
 * own stream for the output, which waits for the reader without blocking the process.
 */
export class DescriptorWriter extends EventEmitter {
  readonly isTTY = false;
  destroyed = false;
  writable = true;
  /** Node's stream for this descriptor, once one write would have had to wait */
  private stream?: NodeJS.WritableStream & { destroyed?: boolean };

  /**
   * @param fallback Node's stream for the output, should a write have to wait (process.stdout for 1)
   * @param owned the descriptor is svc's own (closed when Node's stream takes over)
   */
  constructor(
    readonly fd: number,
    private readonly fallback: () => NodeJS.WritableStream & { destroyed?: boolean } = () => process.stdout,
    private readonly owned = false,
  ) {
    super();
  }

  write(chunk: string | Uint8Array, encoding?: BufferEncoding | Callback, callback?: Callback): boolean {
    const done = typeof encoding === 'function' ? encoding : callback;
    if (this.stream) return this.stream.write(chunk, done);
    if (this.destroyed) {
      // As a destroyed stream: the write's callback hears of it, no second 'error'.
      const error = outputClosedError('write after the output closed');
      if (done) process.nextTick(done, error);
      return false;
    }
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8') : chunk;
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(this.fd, bytes, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return this.handOver(bytes.subarray(written), done);
      this.destroyed = true;
      this.writable = false;
      this.fail(error as Error, done);
      return false;
    }
    if (done) process.nextTick(done, null);
    return true;
  }

  end(chunk?: string | Uint8Array | Callback, encoding?: BufferEncoding | Callback, callback?: Callback): this {
    const done = [chunk, encoding, callback].find((value): value is Callback => typeof value === 'function');
    if (chunk !== undefined && typeof chunk !== 'function') this.write(chunk, typeof encoding === 'string' ? encoding : undefined);
    if (done) process.nextTick(done, null);
    return this;
  }

  /** Node's stream takes the rest of this write and every later one; its events are this writer's. */
  private handOver(rest: Uint8Array, done?: Callback): boolean {
    const stream = this.fallback();
    this.stream = stream;
    if (this.owned) closeSync(this.fd);
    for (const event of ['drain', 'error', 'close', 'finish']) stream.on(event, (...args: unknown[]) => this.emit(event, ...args));
    Object.defineProperty(this, 'destroyed', { get: () => Boolean(stream.destroyed) });
    return stream.write(rest, done);
  }

  /** The failure reported as a stream reports it: to the write's callback, then as 'error' and 'close'. */
  private fail(error: Error, done?: Callback): void {
    process.nextTick(() => {
      done?.(error);
      if (this.listenerCount('error') > 0) this.emit('error', error);
      this.emit('close');
    });
  }
}
