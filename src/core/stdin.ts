/**
 * Reading secrets and payloads from standard input or files, without ever echoing them.
 * Every read takes the run's signal: Ctrl-C while svc waits on a pipe or a terminal that never
 * closes ends the read at once (InterruptedError, exit 130) instead of waiting for end of input.
 */
import { readFile } from 'node:fs/promises';
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

export async function readAll(stream: Readable, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of interruptible(stream, signal)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Lines of stdin, trimmed of their line ends (for `--api-key-stdin --webhook-secret-stdin`). */
export async function readStdinLines(stream: Readable, count: number, what: string, signal: AbortSignal): Promise<string[]> {
  const text = (await readAll(stream, signal)).toString('utf8');
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const values = lines.slice(0, count);
  if (values.length < count || values.some((value) => value === '')) {
    throw new UsageError(`${what}: expected ${count === 1 ? 'a value' : `${count} lines`} on standard input`);
  }
  return values;
}

/** The raw bytes of a file, or of stdin for `-` (payloads must stay byte-exact for signatures). */
export async function readFileOrStdin(path: string | undefined, stdin: Readable, flag: string, signal: AbortSignal): Promise<Buffer> {
  if (path === undefined || path === '') throw new UsageError(`${flag}: required`);
  if (path === '-') return readAll(stdin, signal);
  try {
    return await readFile(path);
  } catch (error) {
    throw fileError(flag, path, error);
  }
}

/** A file named by a flag that cannot be read, as a usage error naming the flag. */
export function fileError(flag: string, path: string, error: unknown): UsageError {
  const code = (error as NodeJS.ErrnoException).code;
  return new UsageError(`${flag}: cannot read ${path}${code === 'ENOENT' ? ': no such file' : code === 'EISDIR' ? ': a directory' : code ? `: ${code}` : ''}`);
}
