/** The `svc orders` verbs, each loaded only when it runs. */
import type { VerbTable } from '../../app/verb.js';

export const verbs: VerbTable = {
  place: () => import('./place.js'),
  ls: () => import('./ls.js'),
  get: () => import('./get.js'),
};
