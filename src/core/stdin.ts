/** Reading secrets and payloads from standard input or files, without ever echoing them. */
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { UsageError } from './errors.js';

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** Lines of stdin, trimmed of their line ends (for `--api-key-stdin --webhook-secret-stdin`). */
export async function readStdinLines(stream: Readable, count: number, what: string): Promise<string[]> {
  const text = (await readAll(stream)).toString('utf8');
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const values = lines.slice(0, count);
  if (values.length < count || values.some((value) => value === '')) {
    throw new UsageError(`${what}: expected ${count === 1 ? 'a value' : `${count} lines`} on standard input`);
  }
  return values;
}

/** The raw bytes of a file, or of stdin for `-` (payloads must stay byte-exact for signatures). */
export async function readFileOrStdin(path: string | undefined, stdin: Readable, flag: string): Promise<Buffer> {
  if (path === undefined || path === '') throw new UsageError(`${flag}: required`);
  if (path === '-') return readAll(stdin);
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
