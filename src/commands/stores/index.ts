/** The `svc stores` verbs, each loaded only when it runs. */
import type { VerbTable } from '../../app/verb.js';

export const verbs: VerbTable = {
  ls: () => import('./ls.js'),
  show: () => import('./show.js'),
};
