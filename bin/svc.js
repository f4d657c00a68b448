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
  const { main } = await import('../dist/cli.js');
  process.exitCode = await main(args);
}
