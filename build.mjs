// Bundles src/ into dist/ with esbuild. Code splitting keeps each command's module (and the
// sandbox) in its own chunk, so `svc --version` loads only the small entry chunk.
// Type checking is separate (`npm run typecheck`).
import { build } from 'esbuild';
import { rmSync, readFileSync, writeFileSync } from 'node:fs';
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
  plugins: [lazyChildProcess],
  logLevel: 'warning',
});

// `svc --help` is the same text every time: render it once here, for the shim to print as it is.
const { rootHelp } = await import(new URL('./dist/cli.js', import.meta.url).href);
writeFileSync(new URL('./dist/help.txt', import.meta.url), rootHelp());
// The package ships the document (also served by the sandbox at {baseUrl}/openapi.json).
writeFileSync(new URL('./dist/openapi.json', import.meta.url), JSON.stringify(apiDocument, null, 2));
