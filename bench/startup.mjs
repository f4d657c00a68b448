// Target 1: `svc --version` and `svc --help` within 1.3× of `node -e 0` (median wall time).
import { BIN, compare, fmt, machine, ratio, report } from './lib.mjs';

const runs = Number(process.env.RUNS ?? 30);
const medians = compare(
  {
    node: { args: ['-e', '0'] },
    version: { args: [BIN, '--version'] },
    help: { args: [BIN, '--help'] },
  },
  runs,
);
report(`startup (${runs} runs each, interleaved; ${machine()})`, [
  ['node -e 0', fmt(medians.node)],
  ['svc --version', `${fmt(medians.version)}  ${ratio(medians.version, medians.node)} (target ≤ 1.30×)`],
  ['svc --help', `${fmt(medians.help)}  ${ratio(medians.help, medians.node)} (target ≤ 1.30×)`],
]);
