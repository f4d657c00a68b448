/**
 * What every run loads (build.mjs): dist/cli.cjs, the one start-up chunk and the bundler's runtime,
 * whatever the command; each command's module is loaded on demand when that command runs.
 */
import { expect, it } from 'vitest';
import { dynamicImports, loadedWith } from '../helpers/dist.js';

it('a run loads dist/cli.cjs, the start-up chunk and the runtime as it starts; every command on demand', () => {
  const names = [...loadedWith('cli.cjs')].map((file) => file.replace(/-[\w-]{8}\.cjs$/, ''));
  expect(names).toEqual(['cli.cjs', 'chunks/startup', 'chunks/rolldown-runtime']);
  // One on-demand module a top-level command that is not a group (login, me, api, sandbox, …), and
  // the command reference.
  expect(dynamicImports('cli.cjs').map((file) => file.replace(/-[\w-]{8}\.cjs$/, '')).sort()).toEqual(
    ['api', 'complete', 'completion', 'doctor', 'inspect', 'login', 'mcp', 'me', 'reference', 'sandbox', 'trigger', 'verify-signature'].map((name) => `chunks/${name}`),
  );
});
