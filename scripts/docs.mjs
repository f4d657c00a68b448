// Writes the command reference (docs/reference/, a page per command) and the man page (docs/svc.1)
// from the built command tree (run `npm run build` first; `npm run docs` does both). A test fails
// when these files are not what the tree gives.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const docs = fileURLToPath(new URL('../docs/', import.meta.url));
const { referenceFiles } = createRequire(import.meta.url)('../dist/cli.cjs');
const { pages, manPage } = await referenceFiles();
const reference = join(docs, 'reference');
mkdirSync(reference, { recursive: true });
for (const name of readdirSync(reference)) if (!pages.has(name)) rmSync(join(reference, name));
for (const [name, text] of pages) writeFileSync(join(reference, name), text);
writeFileSync(join(docs, 'svc.1'), manPage);
console.error(`wrote ${pages.size} pages to docs/reference/ and docs/svc.1`);
