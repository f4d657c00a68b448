import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const BUNDLED = ['commander', 'chalk', 'cli-table3', 'string-width', 'undici', 'csv-stringify', 'ora', '@inquirer/prompts'];
const r = await build({ entryPoints: { cli: 'src/cli.ts' }, outdir: '/tmp/meta-out', bundle: true, splitting: true, format: 'esm', platform: 'node', target: 'node20', metafile: true, write: false,
  external: Object.keys(pkg.dependencies).filter((n) => !BUNDLED.includes(n)).flatMap((n) => [n, `${n}/*`]), chunkNames: 'chunks/[name]-[hash]', define: { __SVC_VERSION__: '"x"' }, logLevel: 'error' });
const outs = r.metafile.outputs;
const seen = new Set();
const walk = (o) => { if (seen.has(o)) return; seen.add(o); for (const i of outs[o].imports) if (i.kind === 'import-statement' && !i.external) walk(i.path); };
walk(process.argv[2] ?? Object.keys(outs).find((k) => k.endsWith('/cli.js')));
for (const o of seen) { console.log('##', o, outs[o].bytes); for (const [inp, v] of Object.entries(outs[o].inputs)) console.log('   ', v.bytesInOutput, inp); }
// who imports builtins
for (const o of seen) for (const inp of Object.keys(outs[o].inputs)) { const imps = r.metafile.inputs[inp]?.imports ?? []; const b = imps.filter((i) => i.external && /^node:|^(tty|os|crypto|child_process|fs|path|events|process|util|stream|net)$/.test(i.path)).map((i) => i.path); if (b.length) console.log('BUILTIN', inp, b.join(' ')); }
