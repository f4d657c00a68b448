/** The `svc events` verbs, each loaded only when it runs. */
import type { VerbTable } from '../../app/verb.js';

export const verbs: VerbTable = {
  tail: () => import('./tail.js'),
  stats: () => import('./stats.js'),
};
