/**
 * The keyring path against a real Secret Service: gnome-keyring inside its own D-Bus session
 * (`dbus-run-session`), so the user's own keyring is never touched. Runs only where both programs
 * are installed (apt-get install gnome-keyring dbus-x11); otherwise it says so and does not run —
 * the fallback to the 0600 file is tested everywhere (test/commands/keys-and-profiles.test.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tempConfigDir } from '../helpers/svc.js';
import { startSandbox, type TestSandbox } from '../sandbox/helpers.js';

const have = (program: string) => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;
const available = have('dbus-run-session') && have('gnome-keyring-daemon');
if (!available) console.warn('keyring-secret-service: dbus-run-session or gnome-keyring-daemon is not installed; the real Secret Service test did NOT run.');

let sb: TestSandbox;
beforeAll(async () => {
  if (available) sb = await startSandbox();
});
afterAll(async () => sb?.close());

describe.runIf(available)('keys in a real Secret Service (gnome-keyring)', () => {
  it('login stores key and secret there, me reads them, the file holds neither, rm removes them', async () => {
    const dir = tempConfigDir();
    const script = [
      'echo pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1',
      'printf "%s\\n%s\\n" "$KEY" "$SECRET" | "$NODE" "$BIN" login --profile kr --base-url "$BASE" --api-key-stdin --webhook-secret-stdin 2>&1 | sed -n 2p',
      '"$NODE" "$BIN" profiles ls -o jsonl',
      '"$NODE" "$BIN" --profile kr me -o jsonl | "$NODE" -e \'process.stdin.on("data", (d) => console.log("me " + JSON.parse(d).key.name))\'',
      'grep -c -e "$KEY" -e "$SECRET" "$SVC_CONFIG_DIR/config.json"',
      '"$NODE" "$BIN" profiles rm kr 2>&1',
      '"$NODE" -e \'console.log("left " + require(process.env.KEYRING).findCredentials("svc").length)\'',
    ].join('\n');
    // Asynchronous: the sandbox answering login's GET /me runs in this process.
    const child = spawn('dbus-run-session', ['--', 'sh', '-c', script], {
      env: {
        ...process.env,
        SVC_KEYRING: '',
        SVC_CONFIG_DIR: dir,
        NODE: process.execPath,
        BIN,
        BASE: sb.info.baseUrl,
        KEY: sb.apiKey('full'),
        SECRET: sb.secret('full'),
        KEYRING: createRequire(import.meta.url).resolve('@napi-rs/keyring'),
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.resume();
    await new Promise((resolve) => child.once('exit', resolve));
    expect(stdout.split('\n')).toEqual([
      'Stored the key and webhook secret in the OS keyring.',
      JSON.stringify({ name: 'kr', baseUrl: sb.info.baseUrl, apiKey: `svc_live_…${sb.apiKey('full').slice(-4)}`, webhookSecret: true, storage: 'keyring', default: true }),
      'me full',
      '0',
      'Removed profile kr.',
      'left 0',
      '',
    ]);
  });
});
