/**
 * Colour by meaning, one table for every view: done is green, waiting yellow, ended badly red.
 * Only where colour is on (the chalk given colours nothing otherwise).
 */
import type { ChalkInstance } from 'chalk';

const DONE = new Set(['ACTIVE', 'APPROVED', 'CLAIMED', 'COMPLETED', 'SENT', 'LIVE', 'DELIVERED', 'SUCCEEDED']);
const WAITING = new Set(['REQUESTED', 'PROCESSING', 'SCHEDULED', 'PENDING']);
const FAILED = new Set(['CANCELLED', 'EXPIRED', 'FAILED', 'REJECTED']);

/** The colour of a status (or an event type, by its last word); unknown ones stay plain. */
export function paintStatus(chalk: ChalkInstance, status: unknown): (text: string) => string {
  const word = typeof status === 'string' ? status.slice(status.lastIndexOf('.') + 1).toUpperCase() : '';
  if (DONE.has(word)) return chalk.green;
  if (WAITING.has(word)) return chalk.yellow;
  if (FAILED.has(word)) return chalk.red;
  return (text) => text;
}
