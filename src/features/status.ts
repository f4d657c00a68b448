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

/** The colour of an event type's group: orders magenta, personal links cyan, the rest yellow. */
export function paintEventGroup(chalk: ChalkInstance, type: string): (text: string) => string {
  if (type.startsWith('order.')) return chalk.magenta;
  if (type.startsWith('personal_link.')) return chalk.cyan;
  return chalk.yellow;
}
