/**
 * The generated bash completion (completions/svc.bash) in a real bash: the command after global
 * options and their values, option values from the description's enums, saved profile names, and
 * files only where a file is asked for. COMPREPLY is compared exactly.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandTree } from '../../src/cli.js';
import { runInProcess } from '../helpers/run.js';

const SCRIPT = resolve(import.meta.dirname, '../../completions/svc.bash');
const BIN = resolve(import.meta.dirname, '../../bin/svc.js');
const program = await commandTree();
const OUTPUT_FORMATS = program.options.find((option) => option.long === '--output')!.argChoices!.join(' ');

let dir: string;
let configDir: string;
let stub: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-completion-'));
  configDir = join(dir, 'config');
  mkdirSync(configDir);
  const profile = { baseUrl: 'http://127.0.0.1:4010/v1', apiKey: 'svc_live_0000000000000000000000000000secret' };
  writeFileSync(join(configDir, 'config.json'), JSON.stringify({ profiles: { sandbox: profile, staging: profile, 'bad name$(x)': profile } }));
  // The svc being completed, as the script calls it (COMP_WORDS[0]): the real one, with this config.
  stub = join(dir, 'svc');
  writeFileSync(stub, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(stub, 0o755);
  mkdirSync(join(dir, 'files'));
  for (const name of ['players.csv', 'players.jsonl']) writeFileSync(join(dir, 'files', name), '');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** COMPREPLY for each command line (the last word is the one being completed), sorted. */
function complete(...lines: string[][]): string[] {
  const calls = lines.map((words) => {
    const quoted = words.map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(' ');
    return `COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _svc_complete; printf '%s\\n' "\${COMPREPLY[*]}"`;
  });
  const script = `source '${SCRIPT}'\n${calls.join('\n')}`;
  // --norc and no stdin: bash reads ~/.bashrc when its stdin is a socket, as under some test runners.
  const out = execFileSync('bash', ['--norc', '--noprofile', '-c', script], {
    encoding: 'utf8',
    cwd: join(dir, 'files'),
    env: { PATH: process.env.PATH, SVC_CONFIG_DIR: configDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return out
    .split('\n')
    .slice(0, lines.length)
    .map((line) => line.split(' ').sort().join(' '));
}

describe('bash completion', () => {
  it('completes the command after global options and their values', () => {
    expect(
      complete(
        ['svc', '--profile', 'sandbox', 'li'],
        ['svc', '-o', 'json', 'links', 'l'],
        ['svc', '--base-url', 'http://x/v1', '--profile', 'p', 'ev'],
        // bash itself splits words at : and = (COMP_WORDBREAKS)
        ['svc', '--base-url', 'http', ':', '//x:8080/v1', '--profile', 'p', 'ev'],
        ['svc', '--profile', '=', 'sandbox', '--debug', 'orders', ''],
        ['svc', '--timeout', '5', 'links', 'create', '--con'],
      ),
    ).toEqual(['links', 'ls', 'events', 'events', 'get ls place', '--concurrency']);
  });

  it('completes option values from the enums of the command\'s resource', () => {
    expect(
      complete(
        ['svc', 'links', 'ls', '--status', ''],
        ['svc', '--profile', 'p', 'orders', 'ls', '--status', 'C'],
        ['svc', 'campaigns', 'ls', '--status', ''],
        ['svc', 'events', 'tail', '--type', 'order.'],
        ['svc', 'events', 'tail', '--type', 'pe'],
        ['svc', '-o', ''],
        ['svc', 'links', 'ls', '--output', 'js'],
        ['svc', 'completion', ''],
      ),
    ).toEqual([
      'ACTIVE CANCELLED CLAIMED EXPIRED REQUESTED',
      'CANCELLED COMPLETED',
      'ACTIVE COMPLETED',
      'order. order.approved order.cancelled order.completed order.sent',
      'personal_link. personal_link.approved personal_link.cancelled personal_link.claimed personal_link.created personal_link.expired',
      OUTPUT_FORMATS.split(' ').sort().join(' '),
      OUTPUT_FORMATS.split(' ').filter((format) => format.startsWith('js')).join(' '),
      'bash fish zsh',
    ]);
  });

  it('completes --profile and profile arguments from the saved names, never a key or an unsafe name', () => {
    expect(complete([stub, '--profile', ''], [stub, 'profiles', 'use', 'st'], [stub, '--profile', '=', 's'])).toEqual(['sandbox staging', 'staging', 'sandbox staging']);
  });

  it('completes files only where a file is asked for', () => {
    expect(
      complete(
        ['svc', 'links', 'create', '--from-file', ''],
        ['svc', 'webhooks', 'sign', '--payload-file', 'players.j'],
        ['svc', 'api', 'POST', '/personal-links', '--data', '@pl'],
        ['svc', 'api', 'POST', '/personal-links', '--data', '{'],
        ['svc', 'links', 'create', '--name', ''],
        ['svc', '--base-url', ''],
        ['svc', 'links', 'get', ''],
      ),
    ).toEqual(['players.csv players.jsonl', 'players.jsonl', '@players.csv @players.jsonl', '', '', '', '--base-url --debug --fields --help --jq --max-retries --no-color --no-input --output --profile --rate --timeout -h -o']);
  });
});

describe('svc __complete profiles', () => {
  it('prints the names only, one a line', async () => {
    const result = await runInProcess(['__complete', 'profiles'], { SVC_CONFIG_DIR: configDir });
    expect(result).toEqual({ exitCode: 0, stdout: 'sandbox\nstaging\n', stderr: '' });
  });
});
