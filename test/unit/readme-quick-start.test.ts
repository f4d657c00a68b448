/**
 * The README's quick start runs as written on a fresh clone: svc is called as ./bin/svc or npx svc
 * (a bare `svc` is not on PATH after a clone), and no line holds a placeholder such as <id> (a shell
 * would read it as a redirection). The block itself was run with sh against the sandbox.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const block = /## Quick start\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
const commands = block.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter(Boolean);

describe('README quick start', () => {
  it('has commands', () => {
    expect(commands.length).toBeGreaterThan(5);
  });

  it('calls svc only as ./bin/svc or npx svc', () => {
    for (const command of commands) expect(command, command).not.toMatch(/(^|[\s($|"])svc\s/);
  });

  it('holds no <placeholder>', () => {
    for (const command of commands) expect(command, command).not.toMatch(/<[a-z-]+>/i);
  });

  it('starts the sandbox on a free port, waits for its JSON line (live keys kept in a temp dir, out of the clone), and stops it', () => {
    expect(commands).toContain('SANDBOX="$(mktemp -d)/sandbox.json"');
    expect(commands).toContain('./bin/svc sandbox --port 0 > "$SANDBOX" &');
    expect(commands).toContain('until [ -s "$SANDBOX" ]; do sleep 0.2; done');
    expect(commands.filter((command) => /sandbox\.json/.test(command))).toEqual(['SANDBOX="$(mktemp -d)/sandbox.json"']);
    expect(commands.at(-1)).toBe('kill $!');
  });

  it('picks a LIVE store (a SCHEDULED one takes no orders)', () => {
    expect(commands.filter((command) => command.startsWith('STORE'))).toEqual([
      `STORE=$(./bin/svc stores ls -o jsonl | first id 'x.phase === "LIVE"')`,
      `STORE_BRAND=$(./bin/svc stores ls -o jsonl | first 'brandIds[0]' 'x.phase === "LIVE"')`,
    ]);
  });
});
