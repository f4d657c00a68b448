/**
 * The MCP SDK loads only for `svc mcp`: in the built dist/, the only way to a module that imports
 * it is the `import()` inside the mcp verb's run, so the start-up of every other command (the entry,
 * `svc profiles ls`, any other verb) does not grow with it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const dist = join(import.meta.dirname, '../../dist');
const files = ['cli.js', ...readdirSync(join(dist, 'chunks')).filter((name) => name.endsWith('.js')).map((name) => `chunks/${name}`)];
const text = new Map(files.map((file) => [file, readFileSync(join(dist, file), 'utf8')]));

/** Modules a file imports as it loads (`import{x}from"./x.js"`, `import"./x.js"`), as dist/ paths. */
function staticImports(file: string): string[] {
  return [...text.get(file)!.matchAll(/(?:\bfrom\s*|\bimport\s*)"(\.\.?\/[^"]+)"/g)].map(([, target]) => join(file, '..', target));
}

/** Modules a file loads on demand (`import("./x.js")`). */
function dynamicImports(file: string): string[] {
  return [...text.get(file)!.matchAll(/\bimport\(\s*"(\.\.?\/[^"]+)"\s*\)/g)].map(([, target]) => join(file, '..', target));
}

function loadedWith(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const target of staticImports(file)) loadedWith(target, seen);
  return seen;
}

const usesSdk = (file: string) => [...loadedWith(file)].some((loaded) => /["']@modelcontextprotocol\//.test(text.get(loaded)!));

it("no module loaded at start-up or by another verb imports the MCP SDK; only the mcp verb's run loads it", () => {
  const withSdk = files.filter(usesSdk);
  expect(withSdk.length).toBeGreaterThan(0);
  expect(withSdk).not.toContain('cli.js');
  // Who loads those modules on demand: the mcp verb alone (its text names its --allow-write flag).
  const loaders = files.filter((file) => dynamicImports(file).some((target) => withSdk.includes(target)));
  expect(loaders).toHaveLength(1);
  expect(text.get(loaders[0])).toContain('--allow-write');
  expect(usesSdk(loaders[0])).toBe(false);
  // The entry and everything it loads (every group's verb table, as `svc profiles ls` runs it) stay clear.
  for (const file of loadedWith('cli.js')) expect({ file, sdk: withSdk.includes(file) }).toEqual({ file, sdk: false });
});
