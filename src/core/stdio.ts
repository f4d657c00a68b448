/**
 * The process's own streams for a run. Node makes `process.stdout` on first use, and for a pipe or
 * a socket that means a net.Socket and the stream and network modules behind it: more than all of
 * svc's own start-up work in a command that only prints a few lines. So while standard output is a
 * file, a pipe or a socket (a script reading svc), svc writes it with plain system calls instead;
 * on a terminal it is Node's stream, as always. stdin and stderr are Node's, made when first used.
 */
import { EventEmitter } from 'node:events';
import { fstatSync, statSync, writeSync, type Stats } from 'node:fs';
import { isatty } from 'node:tty';

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

function isNullDevice(stats: Stats): boolean {
  if (process.platform === 'win32') return false;
  const nul = statSync('/dev/null', { throwIfNoEntry: false });
  return nul !== undefined && nul.isCharacterDevice() && nul.rdev === stats.rdev;
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
      stdout ??= directlyWritable(STDOUT_FD) ? (new DescriptorWriter(STDOUT_FD) as unknown as NodeJS.WriteStream) : process.stdout;
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
  return (streams as unknown) === process || (streams as { processStreams?: unknown }).processStreams === true;
}

function directlyWritable(fd: number): boolean {
  try {
    const stats = fstatSync(fd);
    return stats.isFile() || stats.isFIFO() || stats.isSocket() || (stats.isCharacterDevice() && isNullDevice(stats));
  } catch {
    return false;
  }
}

type Callback = (error?: Error | null) => void;

/**
 * A writable end of a descriptor, written with blocking writes: a full pipe waits for its reader in
 * the write itself (memory stays flat; the run waits with it, as a program writing with write(2)
 * does, and a reader that quits ends it). It has what svc uses of a Writable: write (true, or false
 * when it failed), 'error' and 'close' once it fails, `destroyed`. A reader that went away fails the
 * write with EPIPE, as a stream's would. A descriptor left non-blocking by whoever made it (a write
 * would wait) is handed to Node's own stream, which waits for it without blocking the process.
 */
export class DescriptorWriter extends EventEmitter {
  readonly isTTY = false;
  destroyed = false;
  writable = true;
  /** Node's stream for this descriptor, once one write would have had to wait */
  private stream?: NodeJS.WritableStream & { destroyed?: boolean };

  /**
   * @param fallback Node's stream for the descriptor, should a write have to wait (process.stdout for 1)
   */
  constructor(
    readonly fd: number,
    private readonly fallback: () => NodeJS.WritableStream & { destroyed?: boolean } = () => process.stdout,
  ) {
    super();
  }

  write(chunk: string | Uint8Array, encoding?: BufferEncoding | Callback, callback?: Callback): boolean {
    const done = typeof encoding === 'function' ? encoding : callback;
    if (this.stream) return this.stream.write(chunk, done);
    if (this.destroyed) {
      // As a destroyed stream: the write's callback hears of it, no second 'error'.
      const error = Object.assign(new Error('write after the output closed'), { code: 'EPIPE' });
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

  end(chunk?: string | Uint8Array | Callback, callback?: Callback): this {
    const done = typeof chunk === 'function' ? chunk : callback;
    if (chunk !== undefined && typeof chunk !== 'function') this.write(chunk);
    if (done) process.nextTick(done, null);
    return this;
  }

  /** Node's stream takes the rest of this write and every later one; its events are this writer's. */
  private handOver(rest: Uint8Array, done?: Callback): boolean {
    const stream = this.fallback();
    this.stream = stream;
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
