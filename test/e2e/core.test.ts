/**
 * What only the real process shows: the bin shim (bin/svc.js and ./bin/svc), `npx svc`, `svc --help`,
 * exit codes and standard input of a real process, and
 * `svc sandbox` ended by a signal. Everything else runs in-process (test/commands).
 */
import { spawn } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, readSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { closeLater, tempDir } from '../helpers/cleanup.js';
import { startSandbox, type InProcessSandbox } from '../helpers/sandbox.js';
import { BIN, stopChild, svc } from '../helpers/svc.js';

const ROOT = resolve(dirname(BIN), '..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});

describe('the shim', () => {
  it('bin/svc.js, ./bin/svc and npx svc print the version of package.json', async () => {
    const runs = await Promise.all([
      svc(['--version']),
      execa(join(ROOT, 'bin', 'svc'), ['--version'], { reject: false }),
      execa('npx', ['--offline', 'svc', '--version'], { cwd: ROOT, reject: false, env: { CI: 'true' } }),
    ]);
    for (const run of runs) expect({ exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr.replace(/^npm warn .*\n?/gm, '') }).toEqual({ exitCode: 0, stdout: VERSION, stderr: '' });
  });

  it('--help is what commander prints, with global options before it or not', async () => {
    const fast = await svc(['--help']);
    const live = await svc(['--no-color', '--help']);
    expect(fast.exitCode).toBe(0);
    expect(live.exitCode).toBe(0);
    expect(fast.stdout).toBe(live.stdout);
    expect(fast.stdout).toMatch(/^Usage: svc \[options\] \[command\]\n/);
  });
});

describe('a real process', () => {
  it('exits with the documented codes: 0, 2 for usage, 3 for not found, 4 for a refused key', async () => {
    const env = sandbox.env();
    const outcomes = await Promise.all([
      outcome(['me', '-o', 'json'], env),
      outcome(['links', 'get', 'abc'], env),
      outcome(['links', 'get', '00000000-0000-4000-8000-000000000000'], env),
      outcome(['me'], { ...env, SVC_API_KEY: 'svc_live_nope' }),
    ]);
    expect(outcomes).toEqual([
      { exitCode: 0, stderr: '' },
      { exitCode: 2, stderr: 'error: usage_error: ID: not a valid id (expected a UUID): abc' },
      { exitCode: 3, stderr: 'error: not_found: The personal link was not found or is not accessible with this key.' },
      { exitCode: 4, stderr: 'error: invalid_api_key: The API key is not known.' },
    ]);
  });

  it('writes its output whole to a pipe and a file, and stops quietly with 0 when the pipe\'s reader goes away (`| head -1`)', async () => {
    const campaign = sandbox.sandbox.state.campaigns[0];
    sandbox.sandbox.state.seedLinks(3000, { campaign, brandIds: campaign.brandIds, createdBy: 'full' });
    const env = sandbox.env();
    const whole = await svc(['links', 'ls', '--all'], { env });
    const lines = whole.stdout.split('\n');
    // More than a pipe holds, so the early reader's going away is met by a write.
    expect({ exitCode: whole.exitCode, stderr: whole.stderr, big: whole.stdout.length > 256 * 1024 }).toEqual({ exitCode: 0, stderr: '', big: true });
    expect(lines.every((line) => JSON.parse(line).id)).toBe(true);

    const file = join(tempDir(), 'links.jsonl');
    const toFile = await execa('sh', ['-c', `exec "$0" "$1" links ls --all > "$2"`, process.execPath, BIN, file], { env: { ...env, NO_COLOR: '1' }, reject: false });
    expect({ exitCode: toFile.exitCode, stderr: toFile.stderr, text: readFileSync(file, 'utf8') }).toEqual({ exitCode: 0, stderr: '', text: `${whole.stdout}\n` });

    const child = spawn(process.execPath, [BIN, 'links', 'ls', '--all'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const first = await new Promise<string>((resolveLine) => {
      let text = '';
      child.stdout.on('data', (chunk) => {
        text += chunk;
        if (text.includes('\n')) {
          child.stdout.destroy();
          resolveLine(text.slice(0, text.indexOf('\n')));
        }
      });
    });
    const exitCode = await new Promise((resolveExit) => child.once('close', resolveExit));
    expect({ first, exitCode, stderr }).toEqual({ first: lines[0], exitCode: 0, stderr: '' });
  });

  it('writes a shell pipe directly, and a reader that stops reading never stops the run: Ctrl-C ends it with 130', async () => {
    // More than a pipe holds.
    const campaign = sandbox.sandbox.state.campaigns[0];
    sandbox.sandbox.state.seedLinks(3000, { campaign, brandIds: campaign.brandIds, createdBy: 'full' });
    const env = sandbox.env();
    // A shell's pipe (a FIFO, not the socket Node gives a child): the whole output through `cat`.
    const piped = await execa('sh', ['-c', '"$0" "$1" links ls --all | cat', process.execPath, BIN], { env: { ...env, NO_COLOR: '1' }, reject: false });
    const whole = await svc(['links', 'ls', '--all'], { env });
    expect({ exitCode: piped.exitCode, stderr: piped.stderr, same: piped.stdout === whole.stdout }).toEqual({ exitCode: 0, stderr: '', same: true });

    // A FIFO whose reader reads one chunk and then nothing: svc's writes fill it, and the run goes on
    // (Node's stream waits for the reader), so signals are still heard.
    const fifo = join(tempDir(), 'out');
    await execa('mkfifo', [fifo]);
    const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writeEnd = openSync(fifo, constants.O_WRONLY);
    const child = spawn(process.execPath, [BIN, 'links', 'ls', '--all'], { env: { ...process.env, ...env }, stdio: ['ignore', writeEnd, 'pipe'] });
    closeSync(writeEnd);
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const closed = new Promise<number | null>((resolveExit) => child.once('close', resolveExit));
    // Waits for the first bytes (the pipe then fills, as nobody reads it any more).
    for (let read = 0; read === 0; ) {
      await new Promise((resolveTick) => setImmediate(resolveTick));
      try {
        read = readSync(readEnd, Buffer.alloc(16));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      }
    }
    // Ctrl-C: the run stops waiting for the reader and ends with 130.
    child.kill('SIGINT');
    const exitCode = await closed;
    closeSync(readEnd);
    expect({ exitCode, stderr }).toEqual({ exitCode: 130, stderr: '' });
  });

  it('login reads the key from its standard input and a later run uses the profile', async () => {
    const configDir = tempDir();
    // No keyring here (as in CI): the key goes to the 0600 file, and login says so.
    const env = { SVC_CONFIG_DIR: configDir, SVC_KEYRING: '0' };
    const key = sandbox.key('full').apiKey;
    const login = await svc(['login', '--profile', 'piped', '--base-url', sandbox.baseUrl, '--api-key-stdin'], { env, input: `${key}\n` });
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.stderr).toBe(
      `Logged in as key full (svc_live_…${key.slice(-4)}, scopes PERSONAL_LINKS, REWARD_STORES) at ${sandbox.baseUrl}; saved as profile piped.\n` +
        `note: no OS keyring is usable here; the key went to ${join(configDir, 'config.json')} (mode 0600).`,
    );
    const me = await svc(['--profile', 'piped', 'me'], { env });
    expect(me.exitCode).toBe(0);
    expect(JSON.parse(me.stdout).key.name).toBe('full');
  });

  it('svc sandbox saves a "sandbox" profile, serves it, and exits 0 on Ctrl-C', async () => {
    const configDir = tempDir();
    const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0'], { env: { ...process.env, SVC_CONFIG_DIR: configDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    closeLater(() => stopChild(child));
    let ready = '';
    await new Promise<void>((resolveReady, reject) => {
      child.stdout.on('data', (chunk) => {
        ready += chunk;
        if (ready.includes('\n')) resolveReady();
      });
      child.once('exit', (code) => reject(new Error(`svc sandbox exited with ${code}`)));
    });
    const info = JSON.parse(ready.split('\n')[0]) as { baseUrl: string };
    const me = await svc(['--profile', 'sandbox', 'me'], { env: { SVC_CONFIG_DIR: configDir } });
    expect(JSON.parse(me.stdout).key.name).toBe('full');
    const ls = JSON.parse((await svc(['profiles', 'ls', '-o', 'json'], { env: { SVC_CONFIG_DIR: configDir } })).stdout);
    expect(ls).toEqual([{ name: 'sandbox', baseUrl: info.baseUrl, apiKey: expect.stringMatching(/^svc_live_…\w{4}$/), webhookSecret: true, storage: 'file', default: false }]);
    const exited = new Promise<number | null>((resolveExit) => child.once('exit', resolveExit));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});

async function outcome(args: string[], env: Record<string, string>): Promise<{ exitCode: number | undefined; stderr: string }> {
  const { exitCode, stderr } = await svc(args, { env });
  return { exitCode, stderr };
}

