/** The `svc links` verbs, each loaded only when it runs. */
import type { VerbTable } from '../../app/verb.js';

export const verbs: VerbTable = {
  ls: () => import('./ls.js'),
  get: () => import('./get.js'),
  create: () => import('./create.js'),
  cancel: () => import('./cancel.js'),
};
