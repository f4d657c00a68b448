const t0 = performance.now();
import module from 'node:module';
module.enableCompileCache?.(process.env.HOME + '/.cache/svc/compile-cache');
const t1 = performance.now();
const { main } = await import('../dist/cli.js');
const t2 = performance.now();
const code = await main(process.argv.slice(2));
const t3 = performance.now();
process.on('exit', () => process.stderr.write(`start ${t0|0} cache ${t1|0} import ${t2|0} main ${t3|0} exit ${performance.now()|0}\n`));
