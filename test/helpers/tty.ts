/** Runs svc's main() in-process as if stdout and stderr were a terminal of a given width. */
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli.js';
import type { IOStreams } from '../../src/core/io.js';
import type { InProcessResult } from './run.js';

export async function runAtTerminal(argv: string[], env: Record<string, string | undefined>, columns = 80): Promise<InProcessResult> {
  const terminal = () => Object.assign(new PassThrough(), { isTTY: true, columns });
  const stdout = terminal();
  const stderr = terminal();
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  stdin.end();
  const streams = { stdin, stdout, stderr, env: { NO_COLOR: '1', ...env } } as unknown as IOStreams;
  const exitCode = await main(argv, streams);
  await new Promise((resolve) => setImmediate(resolve));
  return { exitCode, stdout: out, stderr: err };
}
