#!/usr/bin/env node
// Thin shim: everything lives in dist/cli.js (built by `npm run build`, run by `npm ci`). It is
// CommonJS, as dist/ is (bin/package.json, dist/package.json): one synchronous load per module.
// `svc --version` and `svc --help` are answered here without loading the CLI, because scripts call
// them in loops: the version from package.json, the help as the build rendered it (dist/help.txt,
// 80 columns; a narrower terminal gets it from commander, wrapped to fit).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);
const help = args.length === 1 && (args[0] === '--help' || args[0] === '-h') && !(process.stdout.columns < 80);
if (args.length === 1 && args[0] === '--version') {
  process.stdout.write(`${JSON.parse(fs.readFileSync(path.join(__dirname, '../package.json'), 'utf8')).version}\n`);
} else if (help) {
  process.stdout.write(fs.readFileSync(path.join(__dirname, '../dist/help.txt'), 'utf8'));
} else {
  const dist = path.join(__dirname, '../dist');
  codeCache(dist);
  require(path.join(dist, 'cli.js'))
    .main(args)
    .then((code) => {
      process.exitCode = code;
      // Interrupted: the run is over, and output still waiting for a reader that stopped reading is
      // not waited for (what the command had to put back, it has).
      if (code === 130) process.exit(code);
    });
}

/**
 * V8's compiled code of svc's modules, kept between runs so that the next run skips compiling them
 * (a third of the time svc spends loading itself), on every Node (see v8CodeCache); Node's own
 * compile cache (22.1+) for the packages svc loads from node_modules, turned on when one loads.
 *
 * The cache lives where Node's own does: NODE_COMPILE_CACHE, else <os temp dir>/node-compile-cache,
 * never the checkout; NODE_DISABLE_COMPILE_CACHE turns it off. A directory that cannot be made, or
 * that is not this user's alone (a link, another user's, writable by others), only means no cache.
 * svc makes it (one level, in a directory that exists) before Node does: Node's own recursive mkdir
 * never returns under /proc (TMPDIR=/proc/x). With source maps on (--enable-source-maps), Node
 * loads the modules itself, so that stack traces name the sources.
 */
function codeCache(dist) {
  try {
    if (process.env.NODE_DISABLE_COMPILE_CACHE || process.sourceMapsEnabled) return;
    const directory = process.env.NODE_COMPILE_CACHE || path.join(temporaryDirectory(), 'node-compile-cache');
    // Usually there: one lstat (no error made) is cheaper than a mkdir that fails with EEXIST.
    let stats = fs.lstatSync(directory, { throwIfNoEntry: false });
    if (stats === undefined) {
      try {
        fs.mkdirSync(directory, { mode: 0o700 });
      } catch (error) {
        if (error?.code !== 'EEXIST') return;
      }
      stats = fs.lstatSync(directory);
    }
    // Code is loaded from it and written into it: only a directory of this user's that nobody else
    // can write (in a shared temp directory another user may have made it first, or put a link there).
    const mine = typeof process.getuid !== 'function' || stats.uid === process.getuid();
    if (!stats.isDirectory() || !mine || (stats.mode & 0o022) !== 0) return;
    v8CodeCache(directory, dist + path.sep);
  } catch {
    // no cache this run
  }
}

/**
 * Each file of dist/ is compiled with V8's code cache. A file's cache is one file, named by the
 * module's path and V8's version (a rebuild writes over it), that begins with a line naming the
 * module and the version of it the code was made for: device, inode, size, modification and change
 * times (a rebuild or an upgrade writes new files, whose change time no archive or `touch` sets), so
 * a changed file never meets an old cache. The code is stored twice and used only when both copies
 * agree: V8 checks the version and flags it was made with, not the code itself, and damaged code
 * would crash every run. What was compiled by the end of the run (the functions a run calls too,
 * which a cache made as the file is compiled would lack) is written once, when none fitted; files
 * of modules that are no longer there are then removed. (Node 22.1+ has a compile cache of its own;
 * it caches only what compiling made.)
 */
function v8CodeCache(directory, dist) {
  const vm = require('node:vm');
  const Module = module.constructor;
  const load = Module._extensions['.js'];
  const fresh = [];
  let nodeCache = false;
  Module._extensions['.js'] = function (target, filename) {
    if (typeof filename !== 'string' || !filename.startsWith(dist)) {
      // A package from node_modules: Node compiles it, with its own cache where it has one.
      if (!nodeCache) {
        nodeCache = true;
        try {
          require('node:module').enableCompileCache?.(directory);
        } catch {
          // without Node's cache
        }
      }
      return load.call(this, target, filename);
    }
    // The text and the facts that name its cache, read from one open file (a rebuild may replace it meanwhile).
    const fd = fs.openSync(filename, 'r');
    let source;
    let stats;
    try {
      stats = fs.fstatSync(fd);
      source = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
    const file = path.join(directory, `svc-${hash(`${process.versions.v8}\0${process.arch}\0${filename}`)}.v8`);
    const header = Buffer.from(`${JSON.stringify([filename, stats.dev, stats.ino, stats.size, stats.mtimeMs, stats.ctimeMs])}\n`);
    let cachedData;
    try {
      const saved = fs.readFileSync(file);
      const half = (saved.length - header.length) / 2;
      if (Number.isInteger(half) && half > 0 && saved.subarray(0, header.length).equals(header)) {
        const code = saved.subarray(header.length, header.length + half);
        if (code.equals(saved.subarray(header.length + half))) cachedData = code;
      }
    } catch {
      // none yet
    }
    const script = new vm.Script(Module.wrap(source), { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected) fresh.push({ script, file, header });
    const directoryOf = path.dirname(filename);
    // A module of dist/ names another by a relative path to a file that is there (the build wrote
    // both): it is found by joining the two, without Node's search (its stats and real paths).
    const targetRequire = (id) => {
      const sibling = (id.startsWith('./') || id.startsWith('../')) && id.endsWith('.js') ? path.join(directoryOf, id) : undefined;
      if (sibling === undefined || !sibling.startsWith(dist)) return target.require(id);
      const loaded = Module._cache[sibling];
      if (loaded) return loaded.exports;
      const child = new Module(sibling, target);
      child.filename = sibling;
      child.paths = Module._nodeModulePaths(path.dirname(sibling));
      Module._cache[sibling] = child;
      try {
        Module._extensions['.js'](child, sibling);
      } catch (error) {
        delete Module._cache[sibling];
        throw error;
      }
      child.loaded = true;
      return child.exports;
    };
    targetRequire.resolve = (request, options) => Module._resolveFilename(request, target, false, options);
    targetRequire.main = require.main;
    targetRequire.cache = Module._cache;
    script.runInThisContext({ displayErrors: true }).call(target.exports, target.exports, targetRequire, target, filename, directoryOf);
  };
  process.once('exit', () => {
    if (fresh.length === 0) return;
    for (const { script, file, header } of fresh) {
      // Written beside its name and renamed over it: a run reading it never finds half a file.
      const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
      try {
        const code = script.createCachedData();
        fs.writeFileSync(temporary, Buffer.concat([header, code, code]), { flag: 'wx', mode: 0o600 });
        fs.renameSync(temporary, file);
      } catch {
        fs.rmSync(temporary, { force: true });
      }
    }
    pruneCodeCache(directory, new Set(fresh.map(({ file }) => path.basename(file))));
  });
}

/**
 * Removes the cache files of modules that are no longer there (an older build's chunks: their names
 * change with their code). Runs only when a run wrote fresh files; reads the first line of each.
 */
function pruneCodeCache(directory, written) {
  try {
    const names = fs.readdirSync(directory).filter((name) => name.startsWith('svc-') && name.endsWith('.v8') && !written.has(name));
    const buffer = Buffer.alloc(4096);
    for (const name of names.slice(0, 500)) {
      const file = path.join(directory, name);
      let fd;
      try {
        fd = fs.openSync(file, 'r');
        const line = buffer.toString('utf8', 0, fs.readSync(fd, buffer, 0, buffer.length, 0)).split('\n')[0];
        const [module] = JSON.parse(line);
        if (typeof module === 'string' && !fs.existsSync(module)) fs.rmSync(file, { force: true });
      } catch {
        // not one of svc's, or being written: left alone
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
    }
  } catch {
    // nothing removed
  }
}

/** os.tmpdir(), read as it reads it on POSIX systems without loading it (a tenth of a start-up). */
function temporaryDirectory() {
  if (process.platform === 'win32') return require('node:os').tmpdir();
  const directory = process.env.TMPDIR || process.env.TMP || process.env.TEMP || '/tmp';
  return directory.length > 1 && directory.endsWith('/') ? directory.slice(0, -1) : directory;
}

/** Two 32-bit FNV-1a hashes of `text` (offset bases apart), as 16 hex digits. */
function hash(text) {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}
