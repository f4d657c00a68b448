// Bundles src/ into dist/ with esbuild. Code splitting keeps each command's module (and the
// sandbox) in its own chunk, so `svc --version` loads only the small entry chunk.
// Type checking is separate (`npm run typecheck`).
//
// dist/ is replaced file by file, never emptied: a build runs while svc may be running from this
// checkout (`npm test` rebuilds first; the first `npx svc` in a clone runs `prepare`), so the new
// files are written beside it and renamed over the old ones (each rename is atomic), then files the
// new build no longer has are removed. A running svc never finds dist/cli.js missing.
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, readDocument, validateDocument } from './openapi/build-api.mjs';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

// commander requires node:child_process up front for executable subcommands, which svc does not
// use; loading it (and the net/stream modules behind it) is a fifth of `svc --help`. Inside the
// bundle, commander gets a stand-in that loads the real module on first use.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(build) {
    build.onResolve({ filter: /^node:child_process$/ }, (args) =>
      args.importer.includes('node_modules/commander/') ? { path: 'lazy-child-process', namespace: 'svc' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'svc' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, name) => require('node:child_process')[name] });",
      loader: 'js',
    }));
  },
};
// The API description first: an invalid document fails the build, and the code imports what it generates.
const apiDocument = readDocument();
await Promise.all([validateDocument(apiDocument), generate(apiDocument)]);

const root = fileURLToPath(new URL('.', import.meta.url));
const dist = join(root, 'dist');
const staging = mkdtempSync(join(root, '.dist-'));
try {
  await build({
    entryPoints: { cli: 'src/cli.ts' },
    outdir: staging,
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
    plugins: [lazyChildProcess],
    logLevel: 'warning',
  });

  // `svc --help` is the same text every time: render it once here, for the shim to print as it is.
  const { rootHelp } = await import(join(staging, 'cli.js'));
  writeFileSync(join(staging, 'help.txt'), rootHelp());
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
