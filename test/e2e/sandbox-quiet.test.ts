/**
 * `svc sandbox` keeps the shell it was started from usable: its start-up line and errors on stderr,
 * no line per request unless --verbose (stderr) or --log FILE. Spawned: the ready line and the
 * logs belong to the process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type SandboxHandle } from '../helpers/svc.js';

let sandbox: SandboxHandle | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sandbox?.stop();
  sandbox = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function callMe(handle: SandboxHandle): Promise<void> {
  const response = await fetch(`${handle.baseUrl}/me`, { headers: { authorization: `Bearer ${handle.key('full').apiKey}` } });
  expect(response.status).toBe(200);
  await response.text();
}

function origin(handle: SandboxHandle): string {
  return new URL(handle.baseUrl).origin;
}

describe('svc sandbox logging', () => {
  it('is quiet by default: the start-up line and the stop line only; --log FILE gets every request', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-sandbox-log-'));
    const log = join(dir, 'sandbox.log');
    sandbox = await startSandbox(['--log', log]);
    await callMe(sandbox);
    await callMe(sandbox);
    await sandbox.stop();
    expect(sandbox.stderr().split('\n')).toEqual([
      `sandbox listening on ${origin(sandbox)} (seed 1, random keys); admin API at ${sandbox.adminUrl}`,
      'sandbox stopped',
      '',
    ]);
    const lines = readFileSync(log, 'utf8').split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines.slice(0, 2)) expect(line).toMatch(/^GET \/v1\/me 200 [\d.]+ms$/);
  });

  it('--verbose logs every request on stderr', async () => {
    sandbox = await startSandbox(['--verbose']);
    await callMe(sandbox);
    await sandbox.stop();
    const lines = sandbox.stderr().split('\n');
    expect(lines[0]).toBe(`sandbox listening on ${origin(sandbox)} (seed 1, random keys); admin API at ${sandbox.adminUrl}`);
    expect(lines[1]).toMatch(/^GET \/v1\/me 200 [\d.]+ms$/);
    expect(lines.slice(2)).toEqual(['sandbox stopped', '']);
  });
});
