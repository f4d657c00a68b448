#!/usr/bin/env node
// Thin shim: everything lives in dist/cli.js (built by `npm run build`, run by `npm ci`).
import { main } from '../dist/cli.js';

const code = await main(process.argv.slice(2));
process.exitCode = code;
