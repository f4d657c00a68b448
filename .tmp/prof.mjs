import { readFileSync, readdirSync } from 'node:fs';
const dir = process.argv[2];
const p = JSON.parse(readFileSync(`${dir}/${readdirSync(dir)[0]}`, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = p.timeDeltas; 
p.samples.forEach((id, i) => { const n = byId.get(id); const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*\/(dist|node_modules)\//, '$1/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0)); });
const byUrl = new Map();
for (const [k, v] of self) { const u = k.split(' ')[1]?.replace(/:\d+$/, '') ?? ''; byUrl.set(u, (byUrl.get(u) ?? 0) + v); }
console.log('total ms', (p.endTime - p.startTime) / 1000);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((v / 1000).toFixed(1), k);
console.log('--- by url');
for (const [k, v] of [...byUrl].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log((v / 1000).toFixed(1), k);
