/** Runs svc's main() in-process with captured streams: fast command tests without a build. */
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli.js';
import type { IOStreams } from '../../src/core/io.js';
import { tempDir } from './cleanup.js';

export interface InProcessResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export async function runInProcess(argv: string[], env: Record<string, string | undefined>, input = ''): Promise<InProcessResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  stdin.end(input);
  const streams = { stdin, stdout, stderr, env: { NO_COLOR: '1', ...env } } as unknown as IOStreams;
  const exitCode = await main(argv, streams);
  // PassThrough emits 'data' asynchronously: let it deliver everything written before returning.
  await new Promise((resolve) => setImmediate(resolve));
  return { exitCode, stdout: out, stderr: err };
}

/**
 * `svc args…` in-process, in a pipe (no TTY, so never a prompt). Without SVC_CONFIG_DIR in `env`
 * it gets an empty config directory of its own, so no test reads the user's profiles.
 */
export function svc(args: string[], options: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<InProcessResult> {
  const env = options.env ?? {};
  return runInProcess(args, { ...env, SVC_CONFIG_DIR: env.SVC_CONFIG_DIR ?? tempDir() }, options.input ?? '');
}
