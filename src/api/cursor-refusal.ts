/**
 * A saved cursor the service refuses (400 invalid_request on `after`) belongs to another feed: a
 * sandbox restarted since it was saved, or another service behind the same base URL. The commands
 * that resume from one (`events tail --resume`, `refunds due|run|mark`) say so, with the command that
 * starts over, instead of a bare refusal.
 */
import { ApiError } from '../core/errors.js';

/** The service refused the `after` cursor of a request (and nothing else about it). */
export function isRefusedCursor(error: unknown): error is ApiError {
  if (!(error instanceof ApiError) || error.status !== 400 || error.code !== 'invalid_request') return false;
  const fields = error.fieldErrors.map((entry) => (entry as { field?: unknown })?.field);
  return fields.length === 0 || (fields.includes('after') && fields.every((field) => field === 'after' || field === 'limit'));
}

/** The refusal told in words for people: whose cursor, why it is refused, and how to start over. */
export function explainRefusedCursor(error: ApiError, whose: string, startOver: string): ApiError {
  return error.explained(
    `${whose} was refused (${error.message}): it belongs to another feed, e.g. a sandbox restarted since it was saved`,
    `start over from the oldest event: ${startOver}`,
  );
}
