/**
 * Reading secrets and payloads from standard input or files, without ever echoing them.
 * Every read takes the run's signal: Ctrl-C while svc waits on a pipe or a terminal that never
 * closes ends the read at once (InterruptedError, exit 130) instead of waiting for end of input.
 */
import { type Stats, constants } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { onAbort } from './abort.js';
import { InterruptedError, UsageError } from './errors.js';

/**
 * The chunks of a stream until its end; an abort destroys the stream (releasing stdin, so the
 * process can exit) and ends the iteration with InterruptedError.
 */
export async function* interruptible(stream: Readable, signal: AbortSignal): AsyncGenerator<Buffer> {
  if (signal.aborted) {
    stream.destroy();
    throw new InterruptedError();
  }
  const release = onAbort(signal, () => stream.destroy());
  try {
    for await (const chunk of stream) yield typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
  } catch (error) {
    if (signal.aborted) throw new InterruptedError();
    throw error;
  } finally {
    release();
  }
  if (signal.aborted) throw new InterruptedError();
}

/**
 * All of a stream, at most `max` bytes: past that the stream is released and the read ends with
 * `tooLarge()` (standard input of /dev/zero never ends).
 */
export async function readAll(stream: Readable, signal: AbortSignal, max = Number.POSITIVE_INFINITY, tooLarge = (): Error => new UsageError('standard input is too large')): Promise<Buffer> {
  try {
    return await collect(interruptible(stream, signal), max, tooLarge);
  } catch (error) {
    stream.destroy();
    throw error;
  }
}

/** Secrets and keys on standard input: far smaller than this. */
export const SECRET_LIMIT: InputLimit = { bytes: 64 * 1024, words: '64 KiB' };

/** Standard input holding a secret or a key, at most SECRET_LIMIT; `flag` names it in the refusal. */
export function readSecretInput(stream: Readable, signal: AbortSignal, flag: string): Promise<Buffer> {
  return readAll(stream, signal, SECRET_LIMIT.bytes, () => new UsageError(`${flag}: standard input is larger than ${SECRET_LIMIT.words}, the most svc reads for a secret`));
}

/** Lines of stdin, trimmed of their line ends (for `--api-key-stdin --webhook-secret-stdin`). */
export async function readStdinLines(stream: Readable, count: number, what: string, signal: AbortSignal): Promise<string[]> {
  const text = (await readSecretInput(stream, signal, what)).toString('utf8');
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const values = lines.slice(0, count);
  if (values.length < count || values.some((value) => value === '')) {
    throw new UsageError(`${what}: expected ${count === 1 ? 'a value' : `${count} lines`} on standard input`);
  }
  return values;
}

/** How much a whole-file input may hold, and how `--help` and errors say it. */
export interface InputLimit {
  bytes: number;
  words: string;
}

/** A request body read whole (`api --data @file`, `orders place --from-file`): the API's 10 MB limit. */
export const REQUEST_BODY_LIMIT: InputLimit = { bytes: 10 * 1024 * 1024, words: '10 MB' };
/** A webhook payload to sign or verify: 1 MiB, as much as `webhooks listen` takes in one delivery. */
export const PAYLOAD_LIMIT: InputLimit = { bytes: 1024 * 1024, words: '1 MiB' };

/** How much is read from a file at a time. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The raw bytes of a regular file, or of stdin for `-` (payloads must stay byte-exact for
 * signatures), at most `limit`. A directory, fifo, device or socket is a usage error naming it
 * before anything is opened (a fifo with no writer would wait for ever, /dev/zero never ends); the
 * file is then opened non-blocking and checked again, so one swapped in between cannot hang svc.
 * Ctrl-C (the run's signal) ends any wait with InterruptedError.
 */
export async function readFileOrStdin(path: string | undefined, stdin: Readable, flag: string, signal: AbortSignal, limit: InputLimit): Promise<Buffer> {
  if (path === undefined || path === '') throw new UsageError(`${flag}: required`);
  const tooLarge = (what: string) => new UsageError(`${flag}: ${what} is larger than ${limit.words}, the most svc reads here`);
  if (path === '-') return readAll(stdin, signal, limit.bytes, () => tooLarge('standard input'));
  let stats;
  try {
    stats = await stat(path);
  } catch (error) {
    throw fileError(flag, path, error);
  }
  if (!stats.isFile()) throw notRegular(flag, path, stats);
  if (stats.size > limit.bytes) throw tooLarge(path);
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | NONBLOCK);
  } catch (error) {
    throw fileError(flag, path, error);
  }
  try {
    const now = await handle.stat();
    if (!now.isFile()) throw notRegular(flag, path, now);
    return await collect(chunksOf(handle, signal), limit.bytes, () => tooLarge(path));
  } finally {
    await handle.close();
  }
}

const NONBLOCK = constants.O_NONBLOCK ?? 0;

async function* chunksOf(handle: FileHandle, signal: AbortSignal): AsyncGenerator<Buffer> {
  for (;;) {
    if (signal.aborted) throw new InterruptedError();
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(CHUNK_BYTES), 0, CHUNK_BYTES, null);
    if (bytesRead === 0) return;
    yield buffer.subarray(0, bytesRead);
  }
}

/** The chunks joined; past `max` bytes the reading stops with `tooLarge()`. */
async function collect(chunks: AsyncIterable<Buffer>, max: number, tooLarge: () => Error): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.length;
    if (size > max) throw tooLarge();
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

function notRegular(flag: string, path: string, stats: Stats): UsageError {
  const kind = stats.isDirectory() ? 'a directory' : stats.isFIFO() ? 'a fifo' : stats.isSocket() ? 'a socket' : stats.isCharacterDevice() || stats.isBlockDevice() ? 'a device' : 'not a regular file';
  return new UsageError(`${flag}: ${path} is ${kind}; give a regular file, or - for standard input`);
}

/** A file named by a flag that cannot be read, as a usage error naming the flag. */
export function fileError(flag: string, path: string, error: unknown): UsageError {
  const code = (error as NodeJS.ErrnoException).code;
  return new UsageError(`${flag}: cannot read ${path}${code === 'ENOENT' ? ': no such file' : code === 'EISDIR' ? ': a directory' : code ? `: ${code}` : ''}`);
}
