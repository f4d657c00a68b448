// Bundles src/ into dist/ with esbuild, as it comes: ES modules with code splitting. What every run
// loads (src/cli.ts and what it imports) is one file, dist/cli.js; each command's module (imported
// with `import()` where it is used, see src/cli.ts) and what only some commands share are chunks of
// their own under dist/chunks/, loaded where used. Type checking is separate (`npm run typecheck`).
// docs/performance.md says what start-up costs and why.
//
// dist/ is replaced file by file, never emptied: a build runs while svc may be running from this
// checkout (`npm test` rebuilds first; the first `npx svc` in a clone runs `prepare`), so the new
// files are written beside it and renamed over the old ones (each rename is atomic), then files the
// new build no longer has are removed. A running svc never finds dist/cli.js missing.
//
// NOMIN=1 keeps white space, for reading the output.
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, readDocument, validateDocument } from './openapi/build-api.mjs';

const root = fileURLToPath(new URL('.', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

/** Dependencies that are plain JavaScript, bundled; the others (native code, WebAssembly read from a file) stay in node_modules. */
const BUNDLED = ['commander', 'chalk', 'cli-table3', 'string-width', 'undici', 'csv-stringify', 'ora', '@inquirer/prompts'];

// The API description first: an invalid document fails the build, and the code imports what it generates.
const apiDocument = readDocument();
await Promise.all([validateDocument(apiDocument), generate(apiDocument)]);

const dist = join(root, 'dist');
const staging = mkdtempSync(join(root, '.dist-'));
try {
  await build({
    entryPoints: { cli: join(root, 'src/cli.ts') },
    outdir: staging,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: Object.keys(pkg.dependencies).filter((name) => !BUNDLED.includes(name)).flatMap((name) => [name, `${name}/*`]),
    // Bundled CommonJS packages (commander, undici, cli-table3) require() Node's modules: an ES
    // module has no `require`, so each file gets one (esbuild's documented way).
    banner: { js: 'import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);' },
    // --debug turns source maps on (bin/svc.js): stack traces then name src/ files and lines.
    sourcemap: 'linked',
    minifyWhitespace: process.env.NOMIN !== '1',
    minifySyntax: true,
    legalComments: 'none',
    chunkNames: 'chunks/[name]-[hash]',
    define: { __SVC_VERSION__: JSON.stringify(pkg.version) },
    logLevel: 'warning',
  });
  // The package ships the document (also served by the sandbox at {baseUrl}/openapi.json).
  writeFileSync(join(staging, 'openapi.json'), JSON.stringify(apiDocument, null, 2));

  const built = new Set(files(staging).map((file) => relative(staging, file)));
  for (const name of built) {
    mkdirSync(dirname(join(dist, name)), { recursive: true });
    renameSync(join(staging, name), join(dist, name));
  }
  for (const file of files(dist)) if (!built.has(relative(dist, file))) rmSync(file);
} finally {
  rmSync(staging, { recursive: true, force: true });
}

function files(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]));
}
