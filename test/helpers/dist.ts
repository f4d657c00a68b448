/**
 * The built dist/ as files that load one another (build.mjs: CommonJS chunks). A file loads a chunk
 * as it loads itself with `require("./chunks/x.cjs")`, and on demand (a source `import()`) with
 * `Promise.resolve().then(() => require("./chunks/x.cjs"))`.
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

const targets = (file: string, pattern: RegExp) => [...distText(file).matchAll(pattern)].map(([, target]) => join(file, '..', target!));

/** Files `file` loads as it loads. */
export function staticImports(file: string): string[] {
  return targets(file, /(?<!=>\s*)\brequire\(\s*["'`](\.\.?\/[^"'`]+)["'`]\s*\)/g);
}

/** Files `file` loads on demand. */
export function dynamicImports(file: string): string[] {
  return targets(file, /=>\s*require\(\s*["'`](\.\.?\/[^"'`]+)["'`]\s*\)/g);
}

/** `file` and every file loaded as it loads. */
export function loadedWith(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const target of staticImports(file)) loadedWith(target, seen);
  return seen;
}
