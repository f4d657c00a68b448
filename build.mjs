// Bundles src/ into dist/ with esbuild. Code splitting keeps each command's module (and the
// sandbox) in its own chunk, so `svc --version` loads only the small entry chunk.
// Type checking is separate (`npm run typecheck`).
//
// dist/ is replaced file by file, never emptied: a build runs while svc may be running from this
// checkout (`npm test` rebuilds first; the first `npx svc` in a clone runs `prepare`), so the new
// files are written beside it and renamed over the old ones (each rename is atomic), then files the
// new build no longer has are removed. A running svc never finds dist/cli.js missing.
//
// For reading the output: NOMIN=1 keeps white space; KEEP=1 keeps the ES modules of the first pass
// (a .dist-* directory in the checkout).
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, readDocument, validateDocument } from './openapi/build-api.mjs';

const root = fileURLToPath(new URL('.', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

// commander requires node:child_process up front for executable subcommands, which svc does not
// use; loading it (and the net/stream modules behind it) is a fifth of `svc --help`. Inside the
// bundle, commander gets a stand-in that loads the real module on first use.
//
// string-width sets up a grapheme segmenter and large Unicode-property regular expressions as it
// loads (more than the rest of a start-up). svc measures plain text without it (src/core/width.ts),
// so inside the bundle it is set up on first call: esbuild wraps a module that is require()d in a
// function run on the first require.
const lazyModules = {
  name: 'lazy-modules',
  setup(build) {
    build.onResolve({ filter: /^node:child_process$/ }, (args) =>
      args.importer.includes('node_modules/commander/') ? { path: 'child_process', namespace: 'svc-lazy' } : undefined,
    );
    // undici's HTTP/2 client requires node:http2 (a large built-in, a tenth of `svc me` on Node 20)
    // as it loads, only to read ten header-name constants; svc never speaks HTTP/2. Its stand-in
    // has the constants (as the build's Node has them: names and codes fixed by the HTTP/2 RFCs)
    // and loads the real module for anything else.
    build.onResolve({ filter: /^node:http2$/ }, (args) =>
      args.importer.includes('node_modules/undici/') ? { path: 'http2', namespace: 'svc-lazy' } : undefined,
    );
    build.onLoad({ filter: /^http2$/, namespace: 'svc-lazy' }, () => ({
      contents: `const constants = ${JSON.stringify(buildRequire('node:http2').constants)};\nlet real;\nmodule.exports = new Proxy({ constants }, { get: (target, name) => (name === 'constants' ? constants : (real ??= require('node:http2'))[name]) });`,
      loader: 'js',
    }));
    // cli-table3 measures every cell with its own string-width (v4), which builds a large emoji
    // expression on each call: plain text is measured by its length instead (src/core/table-width.ts).
    build.onResolve({ filter: /^string-width$/ }, async (args) => {
      if (!args.importer.includes('node_modules/cli-table3/') || args.pluginData?.real) return undefined;
      const real = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { real: true } });
      return real.errors.length > 0 ? real : { path: 'table-width', namespace: 'svc-table-width', pluginData: { real: real.path } };
    });
    build.onLoad({ filter: /.*/, namespace: 'svc-table-width' }, (args) => ({
      contents: `const { tableWidth } = require(${JSON.stringify(join(root, 'src/core/table-width.ts'))});\nlet real;\nmodule.exports = tableWidth((text) => (real ??= require(${JSON.stringify(args.pluginData.real)}))(text));`,
      loader: 'js',
      resolveDir: root,
    }));
    build.onResolve({ filter: /^string-width$/ }, (args) =>
      args.kind === 'import-statement' && args.importer.startsWith(join(root, 'src')) ? { path: 'string-width', namespace: 'svc-lazy' } : undefined,
    );
    // chalk asks whether stdout and stderr are terminals as it loads: Node's terminal module (and
    // the stream and network modules it loads) only when one may be (src/core/stdio.ts).
    build.onResolve({ filter: /^node:tty$/ }, (args) =>
      args.importer.includes('node_modules/chalk/') ? { path: 'tty', namespace: 'svc-terminal' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'svc-terminal' }, () => ({
      contents: `import { isTerminal } from ${JSON.stringify(join(root, 'src/core/stdio.ts'))};\nexport default { isatty: isTerminal };`,
      loader: 'js',
      resolveDir: root,
    }));
    // An ES import of a built-in module costs more than require() of it: Node builds an ES facade
    // of every export (`node:process` alone is ~3 ms at start-up). Inside the bundle they are required.
    // Each importer gets its own stand-in (a few lines), so no chunk is made for stand-ins shared by
    // different verbs. Those that a plain start-up does not load at all are loaded on first use.
    build.onResolve({ filter: /^node:/ }, (args) =>
      args.kind === 'import-statement' && !args.path.startsWith('node:child_process') ? { path: `${args.path}|${args.importer}`, namespace: 'svc-builtin' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'svc-builtin' }, (args) => ({ contents: builtinModule(args.path.split('|')[0]), loader: 'js' }));
    build.onLoad({ filter: /^child_process$/, namespace: 'svc-lazy' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, name) => require('node:child_process')[name] });",
      loader: 'js',
    }));
    build.onLoad({ filter: /^string-width$/, namespace: 'svc-lazy' }, () => ({
      contents: "let real; export default function stringWidth(text, options) { real ??= require('string-width').default; return real(text, options); }",
      loader: 'js',
      resolveDir: root,
    }));
  },
};
/** Dependencies that are plain JavaScript, bundled (see `external` below). */
const BUNDLED = ['commander', 'chalk', 'cli-table3', 'string-width', 'undici', 'csv-stringify', 'ora', '@inquirer/prompts'];
const LAZY_BUILTINS = new Set(['node:crypto', 'node:fs/promises', 'node:os', 'node:readline', 'node:tty']);
const buildRequire = createRequire(import.meta.url);

/**
 * A built-in module as an ES module of its own exports, so that an importer costs only what it
 * uses. (As CommonJS, each import of one copied every export of the module onto a new object, a
 * getter each: sixteen such copies, ~140 KB, made on every start.) Each export is read once, when
 * the chunk loads, and esbuild drops those no one imports (they are pure). A lazy module's functions
 * load it on their first call; anything else it exports loads it when the chunk loads, if imported.
 */
function builtinModule(name) {
  const spec = JSON.stringify(name);
  const real = name === 'node:process' ? process : buildRequire(name);
  const lazy = LAZY_BUILTINS.has(name);
  const lines = [
    name === 'node:process' ? 'const m = process;' : lazy ? `let loaded;\nconst m = () => (loaded ??= require(${spec}));` : `const m = require(${spec});`,
  ];
  const names = Object.keys(real).filter((key) => /^[A-Za-z_$][\w$]*$/.test(key) && key !== 'default');
  if (lazy) {
    // The default export: an object whose properties load the module when read.
    lines.push(`const lazyDefault = /* @__PURE__ */ (() => { const o = {}; for (const key of ${JSON.stringify(names)}) Object.defineProperty(o, key, { enumerable: true, get: () => m()[key] }); return o; })();`, 'export default lazyDefault;');
  } else {
    lines.push('export default m;');
  }
  for (const key of names) {
    if (lazy && typeof real[key] === 'function' && /^[a-z]/.test(key)) lines.push(`export function ${key}(...args) { return m().${key}(...args); }`);
    else lines.push(`export const ${key} = /* @__PURE__ */ (() => m${lazy ? '()' : ''}.${key})();`);
  }
  return lines.join('\n');
}

// A Node start-up pays for every module file it loads (resolve, read, compile, run), and esbuild
// gives each set of code shared by a different set of verbs its own chunk: a real command loaded
// twenty-odd small files. Modules are put in groups instead, each one chunk: the core that every
// command uses (src/core, src/api, src/app, chalk's stand-in), and the HTTP core that a command
// calling the API adds (the client and what only it uses; loaded with the first call). Code
// outside a group reaches its modules only through a gateway that also imports all of the group,
// so esbuild sees every module of a group used by the same entry points and puts them together.
// What only some commands need stays in their own chunks, and string-width, cli-table3, undici,
// the prompt and spinner libraries load where used.
const CORE_DIRS = ['src/core/', 'src/api/', 'src/app/'].map((dir) => join(root, dir));
// src/commands/declare.ts: the helpers every verb's declaration uses (one file fewer for each verb).
// chalk sets itself up as it loads (its styles, and a look at both descriptors): svc's code and ora
// get a stand-in (part of the core) that loads it on first use, so a run that prints neither a table
// nor colour never does.
const CHALK = join(root, 'node_modules/chalk/source/index.js');
const CHALK_ON_FIRST_USE = join(root, 'src/core/chalk-on-first-use.js');
const CORE_FILES = [join(root, 'src/version.ts'), join(root, 'src/commands/declare.ts'), CHALK_ON_FIRST_USE];
/**
 * Kept out of the core: ajv's compiled validators (the sandbox's), undici (loaded on the first
 * request), webhook signatures (node:crypto, a few ms to load; only the webhook verbs sign),
 * cli-table3's measure (it goes with cli-table3), and --jq's program (loaded when --jq is given).
 */
const NOT_CORE = /\/src\/(api\/generated\/.*-validators\.js|api\/undici\.ts|core\/signature[^/]*\.ts|core\/table-width\.ts|core\/jq\.ts)$/;
/** The HTTP core: the API client and the modules only requests use. */
const HTTP = /\/src\/api\/(client|transport|retry|pacer|body|side)\.ts$/;
const CLI = join(root, 'src/cli.ts');
const GROUPS = {
  core: (path) => !NOT_CORE.test(path) && !HTTP.test(path) && (CORE_FILES.includes(path) || CORE_DIRS.some((dir) => path.startsWith(dir) && path.endsWith('.ts'))),
  http: (path) => HTTP.test(path),
};
const groupOf = (path) => Object.keys(GROUPS).find((group) => GROUPS[group](path));
/** The group a module's imports are made from (cli.ts and chalk's own files count as core). */
const importerGroup = (path) => groupOf(path) ?? (path === CLI || path.includes('/node_modules/chalk/') ? 'core' : undefined);
const groupChunks = {
  name: 'group-chunks',
  setup(build) {
    build.onResolve({ filter: /^(\.{1,2}\/|chalk$)/ }, async (args) => {
      if (args.pluginData?.direct || args.namespace !== 'file') return undefined;
      let resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { direct: true } });
      if (resolved.path === CHALK && args.importer !== CHALK_ON_FIRST_USE) resolved = { ...resolved, path: CHALK_ON_FIRST_USE };
      const group = resolved.errors.length > 0 ? undefined : groupOf(resolved.path);
      // Inside a group, modules import each other directly; a dynamic import goes through a gateway
      // too (its target becomes a small file that re-exports from the group's chunk).
      if (!group || (group === importerGroup(args.importer) && args.kind !== 'dynamic-import')) return resolved;
      return { path: resolved.path, namespace: 'svc-group' };
    });
    // A gateway: imports the whole group (for the chunking), then stands for its module.
    build.onLoad({ filter: /.*/, namespace: 'svc-group' }, (args) => {
      const target = JSON.stringify(`svc-direct:${args.path}`);
      const defaultExport = args.path.includes('/node_modules/') || args.path === CHALK_ON_FIRST_USE ? `export { default } from ${target};` : '';
      return { contents: `import 'svc-all:${groupOf(args.path)}'; export * from ${target}; ${defaultExport}`, loader: 'js', resolveDir: root };
    });
    build.onLoad({ filter: /chalk-on-first-use\.js$/ }, () => ({
      contents: [
        'let real;',
        "const load = () => (real ??= require('chalk'));",
        'export function Chalk(options) { return new (load().Chalk)(options); }',
        'export default new Proxy({}, { get: (_, name) => load().default[name] });',
      ].join('\n'),
      loader: 'js',
      resolveDir: root,
    }));
    build.onResolve({ filter: /^svc-entry$/ }, () => ({ path: 'entry', namespace: 'svc-entry' }));
    build.onLoad({ filter: /.*/, namespace: 'svc-entry' }, () => ({ contents: `import 'svc-all:core'; export * from ${JSON.stringify(CLI)};`, loader: 'js', resolveDir: root }));
    // A whole group, through the gateways (so that they too are used by the same entry points as the group).
    build.onResolve({ filter: /^svc-all:/ }, (args) => ({ path: args.path.slice('svc-all:'.length), namespace: 'svc-all' }));
    build.onLoad({ filter: /.*/, namespace: 'svc-all' }, (args) => ({
      contents: groupModules(args.path).map((path, i) => `export * as m${i} from ${JSON.stringify(`svc-member:${path}`)};`).join('\n'),
      loader: 'js',
      resolveDir: root,
    }));
    build.onResolve({ filter: /^svc-member:/ }, (args) => ({ path: args.path.slice('svc-member:'.length), namespace: 'svc-group' }));
    // Kept even where nothing uses it (a stand-in without side effects), so that
    // esbuild counts it used by the same entry points as the rest of its group.
    build.onResolve({ filter: /^svc-direct:/ }, (args) => ({ path: args.path.slice('svc-direct:'.length), sideEffects: true }));
  },
};

function groupModules(group) {
  return [...CORE_DIRS.flatMap((dir) => files(dir)), ...CORE_FILES].filter((path) => GROUPS[group](path) && !path.endsWith('.d.ts')).sort();
}

// The API description first: an invalid document fails the build, and the code imports what it generates.
const apiDocument = readDocument();
await Promise.all([validateDocument(apiDocument), generate(apiDocument)]);

const dist = join(root, 'dist');
const modules = mkdtempSync(join(root, '.dist-'));
const staging = mkdtempSync(join(root, '.dist-'));
try {
  await build({
    // The entry is cli.ts with the whole core (see groupChunks): every verb loads all of the core, so
    // with the entry reaching it too the core is one chunk, not the part cli.ts imports plus a
    // second chunk of the rest that every verb loaded as one more file.
    entryPoints: { cli: 'svc-entry' },
    outdir: modules,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Bundled: resolving and reading a package's files from node_modules costs more than the
    // chunk they become (each still loads only where used, see above). Packages that are not plain
    // JavaScript (the keyring's native module, WebAssembly read from a file) and any not listed in
    // BUNDLED stay in node_modules.
    external: Object.keys(pkg.dependencies).filter((name) => !BUNDLED.includes(name)).flatMap((name) => [name, `${name}/*`]),
    sourcemap: 'linked',
    // Fewer bytes to read and parse at every start (comments and white space); names are kept, so
    // --debug stack traces still read, and the source map maps them back.
    minifyWhitespace: process.env.NOMIN !== '1',
    minifySyntax: true,
    legalComments: 'none',
    chunkNames: 'chunks/[name]-[hash]',
    define: { __SVC_VERSION__: JSON.stringify(pkg.version) },
    plugins: [lazyModules, groupChunks],
    logLevel: 'warning',
  });

  // Splitting gives ES modules; svc ships each chunk as a CommonJS module instead. Node loads those
  // with one synchronous require each, without the ES loader (resolution, linking and an
  // asynchronous job per module: a fifth of a start-up), and svc's shim can give them a code cache
  // on every Node (bin/svc.js). A dynamic import of a chunk becomes a require when it is first asked
  // for, so each chunk still loads only where used; bindings stay live (esbuild reads them through
  // getters). The source maps are carried through (esbuild reads each chunk's map).
  helpersIntoCore(modules);

  // Read as modules of a CommonJS package: a chunk's default export is its `default`, as esbuild
  // wrote it (in a "type": "module" package esbuild would take a required file's whole exports).
  writeFileSync(join(modules, 'package.json'), JSON.stringify({ type: 'commonjs' }));
  await build({
    entryPoints: files(modules).filter((file) => file.endsWith('.js')),
    outdir: staging,
    outbase: modules,
    bundle: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    supported: { 'dynamic-import': false },
    sourcemap: 'linked',
    minifyWhitespace: process.env.NOMIN !== '1',
    legalComments: 'none',
    // import.meta.url of an ES module is the file's URL, made here when it is first read.
    define: { 'import.meta.url': '__svcModule.url' },
    banner: { js: '"use strict";var __svcModule={get url(){return require("node:url").pathToFileURL(__filename).href}};' },
    logLevel: 'warning',
  });
  for (const file of files(staging)) if (file.endsWith('.js')) exportsInPlace(file);
  // The chunks esbuild writes itself (its helpers, gateways) have no source but the first pass's
  // file, which is gone after the build: their maps name the chunk that carries the same code.
  for (const file of files(staging)) if (file.endsWith('.js.map')) withoutFirstPassSources(file, modules);
  // Every .js file below dist/ is CommonJS (the package itself is "type": "module").
  writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);

  // `svc --help` is the same text every time: render it once here, for the shim to print as it is.
  const { rootHelp } = createRequire(join(staging, 'cli.js'))('./cli.js');
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
  if (process.env.KEEP !== '1') rmSync(modules, { recursive: true, force: true });
  rmSync(staging, { recursive: true, force: true });
}

/**
 * esbuild puts its runtime helpers (__esm, __commonJS, __toESM, …) in a chunk of their own, which
 * every run loads as one more module; they go into the core chunk instead, which every run loads
 * first anyway. The core's import of them is blanked to the same length and the helpers go on a
 * line of their own before it (so the source map only moves down a line); other chunks take them
 * from the core, named by a path of the same length. Left as it is if anything does not fit.
 */
function helpersIntoCore(modules) {
  const chunks = join(modules, 'chunks');
  const entry = readFileSync(join(modules, 'cli.js'), 'utf8');
  const imported = [...entry.matchAll(/from"\.\/chunks\/(chunk-[A-Z0-9]+\.js)"/g)].map(([, name]) => name);
  const helpers = imported.find((name) => readFileSync(join(chunks, name), 'utf8').startsWith('var __create='));
  const core = imported.find((name) => name !== helpers);
  if (!helpers || !core || helpers.length !== core.length) return;
  const helperText = readFileSync(join(chunks, helpers), 'utf8').split('\n')[0];
  const exported = /export\{([\w$,]+)\};$/.exec(helperText);
  let coreText = readFileSync(join(chunks, core), 'utf8');
  const coreImport = new RegExp(`^import\\{([\\w$,]+)\\}from"\\./${helpers.replace('.', '\\.')}";`).exec(coreText);
  if (!exported || !coreImport) return;
  const names = exported[1].split(',');
  const declared = helperText.slice(0, exported.index).match(/(?<=\bvar |,)__\w+(?==)/g) ?? [];
  // Nothing of the core may be declared with a name the helpers use (`var x=`, `,x=` in a list of
  // declarations, `function x`, `class x`, `let x`, `const x`).
  const rest = coreText.slice(coreImport[0].length);
  const declares = (name) => new RegExp(`(?:\\b(?:var|let|const) |,)${name}\\s*=(?!=)|\\b(?:function|class|var|let|const) ${name}\\b`).test(rest);
  if (declared.some((name) => declares(name.replace('$', '\\$')))) return;
  coreText = `${helperText.slice(0, exported.index)}\n${' '.repeat(coreImport[0].length)}${coreText.slice(coreImport[0].length)}`;
  coreText = coreText.replace(/\n\/\/# sourceMappingURL=/, `\nexport{${names.join(',')}};\n//# sourceMappingURL=`);
  writeFileSync(join(chunks, core), coreText);
  const map = JSON.parse(readFileSync(join(chunks, `${core}.map`), 'utf8'));
  writeFileSync(join(chunks, `${core}.map`), JSON.stringify({ ...map, mappings: `;${map.mappings}` }));
  for (const file of files(modules)) {
    if (!file.endsWith('.js') || file === join(chunks, helpers)) continue;
    const text = readFileSync(file, 'utf8');
    if (text.includes(`/${helpers}"`)) writeFileSync(file, text.replaceAll(`/${helpers}"`, `/${core}"`));
  }
  rmSync(join(chunks, helpers));
  rmSync(join(chunks, `${helpers}.map`));
}

/**
 * esbuild's CommonJS modules copy their exports onto a second object as they load (a getter for
 * each name: the core has well over a hundred); they can be that object themselves, marked as
 * converted ES modules, with the same live bindings. The helper is rewritten to the same length,
 * so that the source maps still hold.
 */
function exportsInPlace(file) {
  const copy = 'var __toCommonJS=mod=>__copyProps(__defProp({},"__esModule",{value:true}),mod);';
  const inPlace = 'var __toCommonJS=mod=>__defProp(mod,"__esModule",{value:true});';
  const text = readFileSync(file, 'utf8');
  if (text.includes(copy)) writeFileSync(file, text.replaceAll(copy, inPlace.replace(/;$/, `${' '.repeat(copy.length - inPlace.length)};`)));
}

function withoutFirstPassSources(file, modules) {
  const map = JSON.parse(readFileSync(file, 'utf8'));
  const sources = map.sources.map((source) => (resolve(dirname(file), source).startsWith(modules) ? relative(dirname(file), file.slice(0, -'.map'.length)) : source));
  if (sources.some((source, i) => source !== map.sources[i])) writeFileSync(file, JSON.stringify({ ...map, sources }));
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
