/** The `svc refunds` verbs, each loaded only when it runs. */
import type { VerbTable } from '../../app/verb.js';

export const verbs: VerbTable = {
  due: () => import('./due.js'),
  run: () => import('./run.js'),
  mark: () => import('./mark.js'),
  ls: () => import('./ls.js'),
};
