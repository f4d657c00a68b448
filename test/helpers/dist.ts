/**
 * The built dist/ as files that load one another (build.mjs: rolldown's CommonJS chunks). A file
 * loads a chunk as it loads itself with `require("./chunks/x.cjs")`, and on demand (a source
 * `import()`) inside `Promise.resolve().then(() => … require("./chunks/x.cjs") …)`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const dist = join(import.meta.dirname, '../../dist');

/** Every JavaScript file of dist/, as dist/ paths (`cli.cjs`, `chunks/x.cjs`). */
export function distFiles(): string[] {
  return ['cli.cjs', ...readdirSync(join(dist, 'chunks')).filter((name) => name.endsWith('.cjs')).map((name) => `chunks/${name}`)];
}

const texts = new Map<string, string>();

/** A dist/ file's text. */
export function distText(file: string): string {
  let text = texts.get(file);
  if (text === undefined) texts.set(file, (text = readFileSync(join(dist, file), 'utf8')));
  return text;
}

const RELATIVE_REQUIRE = /\brequire\(\s*["'`](\.\.?\/[^"'`]+)["'`]\s*\)/g;
const ON_DEMAND = /Promise\.resolve\(\)\.then\(\(\)\s*=>[^;]*?\brequire\(\s*["'`](\.\.?\/[^"'`]+)["'`]\s*\)/g;

/** The chunks `file` requires, as dist/ paths: each with whether it is loaded on demand. */
function requires(file: string): { target: string; onDemand: boolean }[] {
  const text = distText(file);
  // Where each on-demand require ends: the same require seen by RELATIVE_REQUIRE ends there too.
  const onDemandEnds = new Set([...text.matchAll(ON_DEMAND)].map((match) => match.index + match[0].length));
  return [...text.matchAll(RELATIVE_REQUIRE)].map((match) => ({ target: join(file, '..', match[1]!), onDemand: onDemandEnds.has(match.index + match[0].length) }));
}

/** Files `file` loads as it loads. */
export function staticImports(file: string): string[] {
  return requires(file).filter((r) => !r.onDemand).map((r) => r.target);
}

/** Files `file` loads on demand. */
export function dynamicImports(file: string): string[] {
  return requires(file).filter((r) => r.onDemand).map((r) => r.target);
}

/** `file` and every file loaded as it loads. */
export function loadedWith(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const target of staticImports(file)) loadedWith(target, seen);
  return seen;
}
