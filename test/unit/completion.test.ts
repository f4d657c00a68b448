import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { allCommands, commandTree } from '../../src/cli.js';
import { completionScript } from '../../src/features/completion.js';

const program = await commandTree();
const dir = resolve(import.meta.dirname, '../../completions');

describe('shell completions', () => {
  for (const [shell, file] of [
    ['bash', 'svc.bash'],
    ['zsh', 'svc.zsh'],
    ['fish', 'svc.fish'],
  ]) {
    it(`completions/${file} is current (regenerate with: npm run completions)`, () => {
      expect(readFileSync(resolve(dir, file), 'utf8')).toBe(completionScript(program, shell));
    });
  }

  it('offers every command and its flags', () => {
    const bash = completionScript(program, 'bash');
    for (const command of allCommands(program)) {
      expect(bash).toContain(command.name());
      for (const option of command.options) if (option.long) expect(bash).toContain(option.long);
    }
  });

  it('the bash script completes subcommands and flags in a real bash', () => {
    const script = `${completionScript(program, 'bash')}
COMP_WORDS=(svc links cr); COMP_CWORD=2; _svc_complete; echo "\${COMPREPLY[*]}"
COMP_WORDS=(svc links create --ca); COMP_CWORD=3; _svc_complete; echo "\${COMPREPLY[*]}"
COMP_WORDS=(svc -o); COMP_CWORD=2; COMP_WORDS+=(""); _svc_complete; echo "\${COMPREPLY[*]}"`;
    const out = execFileSync('bash', ['-c', script], { encoding: 'utf8' }).split('\n');
    expect(out[0]).toBe('create');
    expect(out[1]).toBe('--campaign');
    expect(out[2]).toBe('table json jsonl csv');
  });

  it('every command and group has examples in its help', () => {
    for (const command of allCommands(program)) {
      let help = '';
      command.configureOutput({ writeOut: (text) => (help += text) });
      command.outputHelp();
      expect(help, command.name()).toMatch(/Examples:\n\s+\$ svc /);
    }
  });
});
