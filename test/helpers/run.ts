/** Runs svc's main() in-process on a test terminal (helpers/terminal.ts): fast command tests without a build. */
import { main } from '../../src/cli.js';
import type { Dependencies } from '../../src/app/context.js';
import { tempDir } from './cleanup.js';
import { testTerminal, type TerminalOptions } from './terminal.js';

export interface InProcessResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** `svc argv…` on this terminal; `deps` stand in for the keyring, prompts or API client. */
export async function runOn(terminalOptions: TerminalOptions, argv: string[], deps?: Dependencies): Promise<InProcessResult> {
  const terminal = testTerminal(terminalOptions);
  const exitCode = await main(argv, terminal.streams, deps);
  await terminal.settled();
  return { exitCode, stdout: terminal.stdout, stderr: terminal.stderr };
}

/** `svc argv…` in pipes, stdin holding `input`. */
export function runInProcess(argv: string[], env: Record<string, string | undefined>, input = '', deps?: Dependencies): Promise<InProcessResult> {
  return runOn({ env, input }, argv, deps);
}

/** `svc argv…` as if stdout and stderr were a terminal of this width (stdin an empty pipe). */
export function runAtTerminal(argv: string[], env: Record<string, string | undefined>, columns = 80, deps?: Dependencies): Promise<InProcessResult> {
  return runOn({ tty: { stdout: true, stderr: true }, columns, env, input: '' }, argv, deps);
}

/**
 * `svc args…` in-process, in a pipe (no TTY, so never a prompt). Without SVC_CONFIG_DIR in `env`
 * it gets an empty config directory of its own, so no test reads the user's profiles.
 */
export function svc(args: string[], options: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<InProcessResult> {
  const env = options.env ?? {};
  return runInProcess(args, { ...env, SVC_CONFIG_DIR: env.SVC_CONFIG_DIR ?? tempDir() }, options.input ?? '');
}
