// Bundles src/ into dist/ with esbuild. Code splitting keeps each command's module (and the
// sandbox) in its own chunk, so `svc --version` loads only the small entry chunk.
// Type checking is separate (`npm run typecheck`).
import { build } from 'esbuild';
import { rmSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
rmSync(new URL('./dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/cli.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // commander is on every start-up path: bundling it saves resolving and reading its files.
  // Everything else stays in node_modules and loads only where used.
  external: Object.keys(pkg.dependencies).filter((name) => name !== 'commander').flatMap((name) => [name, `${name}/*`]),
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  define: { __SVC_VERSION__: JSON.stringify(pkg.version) },
  // commander is CommonJS: give the ESM bundle a `require` for the node: built-ins it asks for.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
