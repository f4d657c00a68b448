// Bundles src/ into dist/ with rolldown: CommonJS files with code splitting. What every run loads
// (src/cli.ts and everything it imports, statically) is two files: dist/cli.cjs and the
// `startup` chunk beside it. Each command's module (imported with `import()` where it is used, see
// src/cli.ts) and what only some commands share are chunks of their own under dist/chunks/, loaded
// where used. Type checking is separate (`npm run typecheck`). docs/performance.md says what
// start-up costs, why CommonJS and why one start-up chunk.
//
// dist/ is replaced file by file, never emptied: a build runs while svc may be running from this
// checkout (`npm test` rebuilds first; the first `npx svc` in a clone runs `prepare`), so the new
// files are written beside it and renamed over the old ones (each rename is atomic), then files the
// new build no longer has are removed. A running svc never finds dist/cli.cjs missing.
//
// NOMIN=1 keeps white space, for reading the output.
import { build } from 'rolldown';
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
  const entry = join(root, 'src/cli.ts');
  const startup = new Set();
  await build({
    input: { cli: entry },
    cwd: root,
    platform: 'node',
    tsconfig: join(root, 'tsconfig.json'),
    external: Object.keys(pkg.dependencies).filter((name) => !BUNDLED.includes(name)).flatMap((name) => [name, new RegExp(`^${name}/`)]),
    transform: { target: 'node20', define: { __SVC_VERSION__: JSON.stringify(pkg.version) } },
    plugins: [startupModules(entry, startup)],
    logLevel: 'warn',
    output: {
      dir: staging,
      // CommonJS: Node loads it synchronously, without the ES module loader's asynchronous
      // resolve-and-link of each file (docs/performance.md has the figures).
      format: 'cjs',
      entryFileNames: '[name].cjs',
      chunkFileNames: 'chunks/[name]-[hash].cjs',
      // What every run loads is one chunk, however many commands share each of its modules.
      codeSplitting: { groups: [{ name: 'startup', test: (id) => startup.has(id) }] },
      // --debug turns source maps on (bin/svc.js): stack traces then name src/ files and lines.
      sourcemap: true,
      minify: { compress: true, mangle: false, codegen: { removeWhitespace: process.env.NOMIN !== '1' } },
      comments: { legal: false },
    },
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

/**
 * Collects, once every module is read, the modules `entry` imports statically (directly or through
 * others): what every run loads. Modules imported with `import()` and packages left outside the
 * bundle are not among them.
 */
function startupModules(entry, modules) {
  return {
    name: 'startup-modules',
    buildEnd() {
      const visit = (id) => {
        const info = this.getModuleInfo(id);
        if (modules.has(id) || !info || info.isExternal) return;
        modules.add(id);
        info.importedIds.forEach(visit);
      };
      visit(entry);
      modules.delete(entry);
    },
  };
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
