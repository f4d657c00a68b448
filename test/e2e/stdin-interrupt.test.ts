/**
 * Ctrl-C while svc waits on standard input that never closes: exit 130 at once, nothing on stderr
 * (no stack trace, no error line). Only a real process shows this: a pending read on an open pipe
 * keeps a process alive, and SIGINT is delivered by the OS.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BIN, tempConfigDir } from '../helpers/svc.js';

const O_NONBLOCK = 0o4000;

/**
 * Whether the process has opened its stdin as a stream: Node switches fd 0 to non-blocking when
 * `process.stdin` is first used, which svc does only inside a command, long after main() has set
 * its SIGINT handler. Read from /proc (Linux), so the test waits on a condition, not a guess.
 */
function stdinOpened(pid: number): boolean {
  const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/${pid}/fdinfo/0`, 'utf8'));
  return flags !== null && (parseInt(flags[1], 8) & O_NONBLOCK) !== 0;
}

async function interruptWhileReading(args: string[], partialInput: string): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string; afterSigintMs: number }> {
  const configDir = tempConfigDir();
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, NO_COLOR: '1', SVC_CONFIG_DIR: configDir, SVC_BASE_URL: 'http://127.0.0.1:9/v1', SVC_API_KEY: 'svc_test_0000000000000000000000000000', SVC_WEBHOOK_SECRET: 'whsec-test' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
  try {
    // Part of the input arrives and the pipe stays open, as when a producer stalls.
    child.stdin.write(partialInput);
    // Wait (polling, bounded by the test time-out) until svc has opened stdin: its SIGINT handler is
    // set by then, and an interrupt either stops the read in progress or finds the run interrupted.
    while (child.exitCode === null && !stdinOpened(child.pid!)) await new Promise((resolve) => setTimeout(resolve, 10));
    const sent = performance.now();
    child.kill('SIGINT');
    // Bounded, so a hang fails this test (and the finally below ends the process) instead of the run.
    let bound: NodeJS.Timeout | undefined;
    const hung = new Promise<[null, 'still running']>((resolve) => (bound = setTimeout(() => resolve([null, 'still running']), 15_000)));
    const [code, signal] = await Promise.race([exited, hung]);
    clearTimeout(bound);
    return { code, signal, stdout, stderr, afterSigintMs: performance.now() - sent };
  } finally {
    child.kill('SIGKILL');
    child.stdin.destroy();
    rmSync(configDir, { recursive: true, force: true });
  }
}

describe('Ctrl-C while reading standard input', () => {
  const cases: [string, string[], string][] = [
    ['links create --from-file -', ['links', 'create', '--from-file', '-'], 'campaignId,fullName\n'],
    ['login --api-key-stdin', ['login', '--profile', 'ci', '--api-key-stdin'], 'svc_'],
    ['webhooks sign --payload-file -', ['webhooks', 'sign', '--payload-file', '-'], '{"id":'],
    ['verify-signature --payload-file -', ['verify-signature', '--header', 't=1,v1=00', '--payload-file', '-'], '{"id":'],
    ['api --data @-', ['api', 'POST', '/personal-links', '--data', '@-'], '{"fullName":'],
    ['orders place --from-file -', ['orders', 'place', '--from-file', '-'], '{"storeId":'],
  ];
  it.concurrent.each(cases)('%s exits 130 at once, quietly', async (_name, args, partialInput) => {
    const result = await interruptWhileReading(args, partialInput);
    expect({ code: result.code, signal: result.signal, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 130, signal: null, stdout: '', stderr: '' });
    expect(result.afterSigintMs).toBeLessThan(3_000);
  });
});
