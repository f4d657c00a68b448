#!/usr/bin/env node
// Thin shim: everything lives in dist/cli.js (built by `npm run build`, run by `npm ci`).
// `svc --version` and `svc --help` are answered here without loading the CLI, because scripts call
// them in loops: the version from package.json, the help as the build rendered it (dist/help.txt,
// 80 columns; a narrower terminal gets it from commander, wrapped to fit).
const args = process.argv.slice(2);
const help = args.length === 1 && (args[0] === '--help' || args[0] === '-h') && !(process.stdout.columns < 80);
if (args.length === 1 && args[0] === '--version') {
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else if (help) {
  const { readFileSync } = await import('node:fs');
  process.stdout.write(readFileSync(new URL('../dist/help.txt', import.meta.url), 'utf8'));
} else {
  compileCache();
  const { main } = await import('../dist/cli.js');
  process.exitCode = await main(args);
}

/**
 * Node 22.1+ keeps V8's compiled code of the modules it loads, so the next run skips compiling them
 * (a third of the time svc spends loading itself). The cache is Node's own: NODE_COMPILE_CACHE, else
 * <os temp dir>/node-compile-cache, never the checkout; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 * A directory that cannot be made, or that is not this user's alone (a link, another user's, writable
 * by others), only means no cache. svc makes it (one level, in a directory that
 * exists) before Node does: Node's own recursive mkdir never returns under /proc (TMPDIR=/proc/x).
 */
function compileCache() {
  try {
    const enable = process.getBuiltinModule?.('node:module')?.enableCompileCache;
    if (typeof enable !== 'function' || process.env.NODE_DISABLE_COMPILE_CACHE) return;
    const { join } = process.getBuiltinModule('node:path');
    const directory = process.env.NODE_COMPILE_CACHE || join(process.getBuiltinModule('node:os').tmpdir(), 'node-compile-cache');
    const fs = process.getBuiltinModule('node:fs');
    // Usually there: a stat (no error made) is cheaper than a mkdir that fails with EEXIST.
    if (!fs.statSync(directory, { throwIfNoEntry: false })?.isDirectory()) {
      try {
        fs.mkdirSync(directory, { mode: 0o700 });
      } catch (error) {
        if (error?.code !== 'EEXIST' || !fs.statSync(directory).isDirectory()) return;
      }
    }
    // Code is loaded from it and written into it: only a directory of this user's that nobody else
    // can write (in a shared temp directory another user may have made it first, or put a link there).
    const stats = fs.lstatSync(directory);
    const mine = typeof process.getuid !== 'function' || stats.uid === process.getuid();
    if (!stats.isDirectory() || !mine || (stats.mode & 0o022) !== 0) return;
    enable(directory);
  } catch {
    // no cache this run
  }
}
