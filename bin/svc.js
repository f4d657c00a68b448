#!/usr/bin/env node
// svc's command: the CLI is dist/cli.cjs (built by `npm run build`, run by `npm ci`).
// Node's compile cache (22.1+) keeps the compiled code between runs, in the user's own cache directory
// rather than the shared temp directory (NODE_COMPILE_CACHE=<dir> puts it elsewhere,
// NODE_DISABLE_COMPILE_CACHE=1 turns it off); --debug turns source maps on, so that stack traces
// name src/ files and lines. See docs/performance.md.
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
module.enableCompileCache?.(process.env.NODE_COMPILE_CACHE || join(cacheHome, 'svc', 'compile-cache'));
if (args.includes('--debug') || process.env.SVC_DEBUG === '1') process.setSourceMapsEnabled(true);
const { main } = module.createRequire(import.meta.url)('../dist/cli.cjs');
const code = await main(args);
process.exitCode = code;
// Interrupted: the run is over; output still waiting for a reader that stopped reading is not waited for.
if (code === 130) process.exit(code);
