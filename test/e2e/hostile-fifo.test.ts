/**
 * A hostile local user plants a fifo where svc keeps a file (the config, the refund ledger, its
 * cursor, the runner lock). Opening a fifo waits for a writer that never comes, and no signal ends
 * that wait (SIGTERM left svc hanging for good): each is refused at once, exit 2 naming the path.
 * Spawned, because the old behaviour is a process that never ends (the helper kills it at the
 * time-out).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cleanup.js';
import { svc } from '../helpers/svc.js';

const notRegular = (path: string) => `error: usage_error: ${path} is not a regular file (a fifo, socket, device or directory); svc reads and writes only regular files there (nothing was written; remove it)\n`;

describe('a fifo where svc keeps a file', () => {
  it.each(['ledger.jsonl', 'ledger.jsonl.cursor', 'ledger.jsonl.lock'])('refunds run with a fifo at %s: exit 2 naming it, never waiting for a writer', async (name) => {
    const dir = tempDir();
    const fifo = join(dir, name);
    execFileSync('mkfifo', [fifo]);
    const env = { SVC_API_KEY: 'svc_live_test0000000000', SVC_BASE_URL: 'http://127.0.0.1:9/v1', SVC_CONFIG_DIR: dir };
    // A svc waiting on the fifo is killed at the time-out, and its exit code then fails the test.
    const result = await svc(['--max-retries', '0', 'refunds', 'run', '--ledger', join(dir, 'ledger.jsonl'), '--exec', 'true'], { env, timeout: 15_000 });
    expect({ code: result.exitCode, stderr: result.stderr }).toEqual({ code: 2, stderr: notRegular(fifo).trimEnd() });
  });

  it('me with a fifo at the config file: exit 2 naming it', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'config.json');
    execFileSync('mkfifo', [fifo]);
    const result = await svc(['me'], { env: { SVC_CONFIG_DIR: dir }, timeout: 15_000 });
    expect({ code: result.exitCode, stderr: result.stderr }).toEqual({ code: 2, stderr: `error: usage_error: config file ${fifo} is not a regular file; svc keeps keys only in a regular file (remove it)` });
  });
});
