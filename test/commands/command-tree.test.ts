/**
 * A run that names its command first declares only that command (cli.ts): what it prints is what
 * the whole tree prints. The completion scripts made by a run match the committed ones (built from
 * the whole tree, in the order of the commands); a group's help and a mistyped verb read the same
 * whether the group's name comes first or after a global option (which declares every command).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { svc } from '../helpers/run.js';

describe('a run that names its command first', () => {
  it('prints the completion scripts of the whole tree', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const result = await svc(['completion', shell]);
      expect({ exitCode: result.exitCode, stderr: result.stderr, same: result.stdout === readFileSync(resolve(import.meta.dirname, `../../completions/svc.${shell}`), 'utf8') }).toEqual({
        exitCode: 0,
        stderr: '',
        same: true,
      });
    }
  });

  it('a group\'s help and a mistyped verb read as they do with every command declared', async () => {
    for (const args of [['profiles', '--help'], ['links'], ['profiles', 'lss'], ['links', 'create', '--help'], ['profiles', 'ls', '--bogus']]) {
      const [alone, whole] = await Promise.all([svc(args), svc(['--no-input', ...args])]);
      expect({ args, ...alone }).toEqual({ args, ...whole });
    }
  });

  it('a command that is not one is answered with the whole list to choose from', async () => {
    const result = await svc(['profile', 'ls']);
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: "error: usage_error: unknown command 'profile'\nhint: Did you mean profiles?\n" });
  });
});
