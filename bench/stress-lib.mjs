// Shared by the stress scripts (bench/stress-*.mjs): start a sandbox from SVC_BIN, run svc with a
// private config directory, call the admin API, and collect PASS/FAIL checks into one summary.
// SVC_BIN defaults to ../bin/svc.js; point it at another build to avoid rebuilding the shared dist/.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const BIN = process.env.SVC_BIN ?? fileURLToPath(new URL('../bin/svc.js', import.meta.url));

export function tempDir(prefix = 'svc-stress-') {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function startSandbox(args = []) {
  const configDir = tempDir('svc-stress-sandbox-');
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--no-profile', ...args], {
    env: { ...process.env, SVC_CONFIG_DIR: configDir, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-50_000);
  });
  const lines = createInterface({ input: child.stdout });
  const info = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not start: ${stderr}`)), 15_000);
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line));
    });
  });
  const key = (name) => info.keys.find((k) => k.name === name);
  return {
    ...info,
    pid: child.pid,
    key,
    stderr: () => stderr,
    async admin(method, path, body) {
      const res = await fetch(`${info.adminUrl}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    /** a GET on /v1 with a key, never through faults-aware retries: callers clear faults first */
    async api(path, keyName = 'full') {
      const res = await fetch(`${info.baseUrl}${path}`, { headers: { authorization: `Bearer ${key(keyName).apiKey}` } });
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        process.kill(child.pid, 'SIGTERM');
      }).finally(() => rmSync(configDir, { recursive: true, force: true }));
    },
  };
}

/** Runs svc to completion; stdin given as a string. */
export function runSvc(args, { env = {}, input, timeoutMs = 120_000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    const timer = setTimeout(() => process.kill(child.pid, 'SIGKILL'), timeoutMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

/** Starts svc in the background; the caller reads `stdout()` and stops it by PID. */
export function spawnSvc(args, { env = {} } = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = [];
  const err = [];
  const listeners = new Set();
  child.stdout.on('data', (c) => {
    out.push(c);
    for (const listener of listeners) listener();
  });
  child.stderr.on('data', (c) => err.push(c));
  const closed = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  return {
    child,
    pid: child.pid,
    closed,
    stdout: () => Buffer.concat(out).toString('utf8'),
    stderr: () => Buffer.concat(err).toString('utf8'),
    onStdout(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, signal);
      return closed;
    },
  };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** PASS/FAIL bookkeeping: `check(name, ok, detail)`, then `finish()` prints and sets the exit code. */
export function checks(title) {
  const results = [];
  return {
    check(name, ok, detail = '') {
      results.push({ name, ok: Boolean(ok), detail });
      if (!ok) console.log(`  FAIL ${name}${detail ? `: ${detail}` : ''}`);
      return Boolean(ok);
    },
    figure(label, value) {
      console.log(`  ${label}: ${value}`);
    },
    finish() {
      const failed = results.filter((r) => !r.ok);
      console.log(`\n${title}: ${failed.length === 0 ? 'PASS' : 'FAIL'} (${results.length - failed.length}/${results.length} checks passed)`);
      for (const r of failed.slice(0, 30)) console.log(`  - ${r.name}${r.detail ? `: ${r.detail}` : ''}`);
      process.exitCode = failed.length === 0 ? 0 : 1;
      return failed.length === 0;
    },
  };
}

/** Every item of a /v1 list, following nextCursor. */
export async function listAll(sandbox, path, keyName = 'full') {
  const items = [];
  let after;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const page = await sandbox.api(`${path}${sep}limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`, keyName);
    items.push(...page.items);
    if (!page.nextCursor || page.items.length === 0 || page.nextCursor === after) return items;
    after = page.nextCursor;
  }
}
