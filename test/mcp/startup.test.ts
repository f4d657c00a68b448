/**
 * The MCP SDK loads only for `svc mcp`: in the built dist/, the only way to a module that imports
 * it is the `import()` inside the mcp verb's run, so the start-up of every other command (the entry,
 * `svc profiles ls`, any other verb) does not grow with it.
 */
import { expect, it } from 'vitest';
import { distFiles, distText, dynamicImports, loadedWith } from '../helpers/dist.js';

const files = distFiles();

const usesSdk = (file: string) => [...loadedWith(file)].some((loaded) => /["'`]@modelcontextprotocol\//.test(distText(loaded)));

it("no module loaded at start-up or by another verb imports the MCP SDK; only the mcp verb's run loads it", () => {
  const withSdk = files.filter(usesSdk);
  expect(withSdk.length).toBeGreaterThan(0);
  expect(withSdk).not.toContain('cli.cjs');
  // Who loads those modules on demand: the mcp verb alone (its text names its --allow-write flag).
  const loaders = files.filter((file) => dynamicImports(file).some((target) => withSdk.includes(target)));
  expect(loaders).toHaveLength(1);
  expect(distText(loaders[0]!)).toContain('--allow-write');
  expect(usesSdk(loaders[0]!)).toBe(false);
  // The entry and everything it loads (every group's verb table, as `svc profiles ls` runs it) stay clear.
  for (const file of loadedWith('cli.cjs')) expect({ file, sdk: withSdk.includes(file) }).toEqual({ file, sdk: false });
});
