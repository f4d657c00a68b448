/**
 * Whole-file inputs against real devices, fifos and directories: each is exit 2 naming it at once
 * (the old behaviour: /dev/zero grew svc to gigabytes, a fifo with no writer hung it for good), and
 * standard input that never ends stops at the cap. Spawned, because a hang or a runaway read is
 * only visible in a real process (the helper kills it at the time-out, failing the exit code; the
 * unit test times the refusal itself, as a spawned process's start-up time varies with the load).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cleanup.js';
import { BIN, svc } from '../helpers/svc.js';

const ENV = { SVC_API_KEY: 'svc_test_0000000000000000000000000000', SVC_BASE_URL: 'http://127.0.0.1:9/v1', SVC_WEBHOOK_SECRET: 'whsec-test' };
const refusedAs = (flag: string, path: string, kind: string) => `error: usage_error: ${flag}: ${path} is ${kind}; give a regular file, or - for standard input`;

describe('whole-file inputs that are not regular files', () => {
  it.concurrent('verify-signature --payload-file /dev/zero: exit 2 naming the device, at once', async () => {
    const result = await svc(['verify-signature', '--header', 't=1,v1=00', '--payload-file', '/dev/zero'], { env: { ...ENV, SVC_CONFIG_DIR: tempDir() }, timeout: 20_000 });
    expect({ code: result.exitCode, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 2, stdout: '', stderr: refusedAs('--payload-file', '/dev/zero', 'a device') });
  });

  it.concurrent('api --data @fifo with no writer: exit 2 naming the fifo, at once', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'body.json');
    execFileSync('mkfifo', [fifo]);
    const result = await svc(['api', 'POST', '/personal-links', '--data', `@${fifo}`], { env: { ...ENV, SVC_CONFIG_DIR: dir }, timeout: 20_000 });
    expect({ code: result.exitCode, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 2, stdout: '', stderr: refusedAs('--data', fifo, 'a fifo') });
  });

  it.concurrent('orders place --from-file DIR: exit 2 naming the directory', async () => {
    const dir = tempDir();
    const sub = join(dir, 'orders');
    mkdirSync(sub);
    const result = await svc(['orders', 'place', '--from-file', sub], { env: { ...ENV, SVC_CONFIG_DIR: dir }, timeout: 20_000 });
    expect({ code: result.exitCode, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 2, stdout: '', stderr: refusedAs('--from-file', sub, 'a directory') });
  });

  it.concurrent('webhooks sign --payload-file - < /dev/zero: stops at 1 MiB, exit 2', async () => {
    const result = await execa(process.execPath, [BIN, 'webhooks', 'sign', '--payload-file', '-'], {
      env: { NO_COLOR: '1', ...ENV, SVC_CONFIG_DIR: tempDir() },
      inputFile: '/dev/zero',
      reject: false,
      timeout: 20_000,
    });
    expect({ code: result.exitCode, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 2, stdout: '', stderr: 'error: usage_error: --payload-file: standard input is larger than 1 MiB, the most svc reads here' });
  });
});
