/**
 * `--forward-to` with plain http to a non-loopback host is refused before any connection. The run
 * happens in a network namespace that has nothing but loopback (`unshare -rn`), so even if the code
 * were wrong no request could leave the machine. Where unshare is not permitted this file is skipped
 * (the probe is the same command without svc); test/commands/events-tail-filters.test.ts still
 * checks in-process that the refusal makes no request at all.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, tempConfigDir } from '../helpers/svc.js';

const probe = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link set lo up && true'], { encoding: 'utf8' });
const isolated = probe.status === 0;

describe.skipIf(!isolated)('--forward-to refusal, with only loopback reachable', () => {
  it('exits 2 naming the rule, for a metadata address, a private address and a public name', () => {
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://192.168.1.10:8080/hooks', 'http://hooks.example.test/x']) {
      const result = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', process.execPath, BIN, 'events', 'tail', '--follow', '--forward-to', url], {
        encoding: 'utf8',
        timeout: 15_000,
        env: {
          ...process.env,
          NO_COLOR: '1',
          SVC_CONFIG_DIR: tempConfigDir(),
          SVC_API_KEY: 'svc_live_testkey0000000000wxyz',
          SVC_BASE_URL: 'http://127.0.0.1:9/v1',
          SVC_WEBHOOK_SECRET: 'f'.repeat(64),
        },
      });
      expect({ url, status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
        url,
        status: 2,
        stdout: '',
        stderr: `error: usage_error: --forward-to: plain http:// only to a loopback host (127.0.0.1, ::1, localhost); use https:// for ${new URL(url).hostname}\n`,
      });
    }
  });
});
