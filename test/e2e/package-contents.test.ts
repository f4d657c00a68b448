/**
 * What `npm pack` puts in the package, checked without packing (scripts/pack-install.sh installs the
 * real tarball in CI): the built CLI and its chunks, no sources; and every package the built code
 * imports is a runtime dependency, so `npm install -g --omit=dev` gives a working svc.
 */
import { execFileSync } from 'node:child_process';
import { isBuiltin } from 'node:module';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; bin: Record<string, string> };

describe('the package', () => {
  it('carries bin/, every file of dist/ and no sources', () => {
    const [report] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as { files: { path: string }[] }[];
    const files = new Set(report.files.map((file) => file.path));
    expect(pkg.bin).toEqual({ svc: 'bin/svc.js' });
    const dist = (dir: string): string[] => readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? dist(join(dir, entry.name)) : [join(dir, entry.name)]));
    for (const file of ['bin/svc.js', 'package.json', ...dist('dist')]) expect({ file, packed: files.has(file) }).toEqual({ file, packed: true });
    expect([...files].filter((file) => file.startsWith('src/') || file.startsWith('test/'))).toEqual([]);
  });

  it('imports at run time only its dependencies (commander is bundled into dist/)', () => {
    const imported = new Set<string>();
    const files = readdirSync(join(root, 'dist/chunks')).map((name) => join('dist/chunks', name)).concat('dist/cli.cjs', 'bin/svc.js');
    for (const file of files.filter((name) => /\.c?js$/.test(name))) {
      const text = readFileSync(join(root, file), 'utf8');
      // (Not inside a string: ajv's bundled validators keep `'require("ajv/…")'` as text they never run.)
      for (const [, specifier] of text.matchAll(/(?<!['"`])(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["'`]([^"'`./][^"'`]*)["'`]/g)) {
        // Node's own modules (bundled dependencies name them without `node:`), and text that only looks
        // like an import inside a bundled string, are not packages.
        if (isBuiltin(specifier) || !/^(@[a-z0-9~-][\w.~-]*\/)?[a-z0-9~-][\w.~-]*(\/[\w.~/-]*)?$/.test(specifier)) continue;
        imported.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);
      }
    }
    const runtime = new Set(Object.keys(pkg.dependencies));
    expect([...imported].filter((name) => !runtime.has(name))).toEqual([]);
    expect(imported.has('jq-wasm')).toBe(true);
  });
});
