/**
 * End-to-end helpers: run the real bin/svc (built dist) and start `svc sandbox --port 0`.
 * Every run gets its own config directory so tests never touch the user's profiles.
 */
import { execa, type ResultPromise } from 'execa';
import { resolve } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { SandboxKeyInfo as SandboxKey } from '../../src/sandbox/app.js';
import { adminCall } from './admin.js';
import { closeLater, tempDir } from './cleanup.js';

export const BIN = resolve(import.meta.dirname, '../../bin/svc.js');

export type { SandboxKeyInfo as SandboxKey } from '../../src/sandbox/app.js';

export interface SandboxHandle {
  baseUrl: string;
  adminUrl: string;
  keys: SandboxKey[];
  key(name: string): SandboxKey;
  /** env for running svc against this sandbox with the named key */
  env(keyName?: string): Record<string, string>;
  configDir: string;
  process: ChildProcess;
  stderr: () => string;
  /** admin API call */
  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

/** A fresh config directory, removed after the test file (see cleanup.ts). */
export function tempConfigDir(): string {
  return tempDir();
}

export async function startSandbox(args: string[] = []): Promise<SandboxHandle> {
  const configDir = tempConfigDir();
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--no-profile', ...args], {
    // Every answer is checked against the API description; stop() fails the test on a disagreement.
    env: { ...process.env, SVC_CONFIG_DIR: configDir, NO_COLOR: '1', SVC_SANDBOX_VALIDATE_RESPONSES: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  closeLater(() => stopChild(child));
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
    if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not start: ${stderr}`)), 15_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolvePromise(line);
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)));
  });
  const info = JSON.parse(first) as { baseUrl: string; adminUrl: string; keys: SandboxKey[] };
  const handle: SandboxHandle = {
    ...info,
    configDir,
    process: child,
    stderr: () => stderr,
    key(name) {
      const found = info.keys.find((key) => key.name === name);
      if (!found) throw new Error(`no sandbox key ${name}`);
      return found;
    },
    env(keyName = 'full') {
      return { SVC_CONFIG_DIR: configDir, SVC_BASE_URL: info.baseUrl, SVC_API_KEY: handle.key(keyName).apiKey, NO_COLOR: '1' };
    },
    admin: (method, path, body) => adminCall(info.adminUrl, method, path, body),
    async stop() {
      await stopChild(child);
      const violations = stderr.split('\n').filter((line) => line.includes('response does not match the API description'));
      if (violations.length > 0) throw new Error(`sandbox answers disagree with openapi/openapi.yaml:\n${violations.join('\n')}`);
    },
  };
  return handle;
}

/**
 * Ends a child with SIGTERM and waits until it has exited and its output has all arrived: 'exit' can
 * come before the last stdout/stderr data, so this waits for 'close' (at once when that has happened).
 */
export async function stopChild(child: ChildProcess): Promise<void> {
  const exited = child.exitCode !== null || child.signalCode !== null;
  const drained = [child.stdout, child.stderr].every((stream) => !stream || stream.destroyed || stream.readableEnded);
  if (exited && drained) return;
  const closed = new Promise((resolvePromise) => child.once('close', resolvePromise));
  // Output nobody reads is read and dropped, so its end (and 'close') can come.
  for (const stream of [child.stdout, child.stderr]) if (stream && stream.readableFlowing !== true) stream.resume();
  if (!exited) child.kill('SIGTERM');
  await closed;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  timeout?: number;
}

/** Runs bin/svc with a clean environment (no CI-specific or user config leaking in). */
export function svc(args: string[], options: RunOptions = {}): ResultPromise<{ reject: false }> {
  return execa(process.execPath, [BIN, ...args], {
    env: { NO_COLOR: '1', ...options.env },
    extendEnv: true,
    input: options.input ?? '',
    reject: false,
    timeout: options.timeout ?? 60_000,
  }) as unknown as ResultPromise<{ reject: false }>;
}
