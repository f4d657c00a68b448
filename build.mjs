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
  packages: 'external',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  define: { __SVC_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});
