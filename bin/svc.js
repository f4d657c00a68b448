#!/usr/bin/env node
// Thin shim: everything lives in dist/cli.js (built by `npm run build`, run by `npm ci`).
// `svc --version` is answered here, without loading the CLI, because scripts call it in loops.
const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--version') {
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  const { main } = await import('../dist/cli.js');
  process.exitCode = await main(args);
}
