/** The `svc webhooks` verbs, each loaded only when it runs. */
import type { VerbTable } from '../../app/verb.js';

export const verbs: VerbTable = {
  test: () => import('./test.js'),
  sign: () => import('./sign.js'),
  listen: () => import('./listen.js'),
  replay: () => import('./replay.js'),
};
