/**
 * The code of a refusal as one of the description's known error codes (KnownErrorCode; ErrorCode
 * itself is open, any string), so that every code svc branches on is checked against the
 * description by the compiler: a code the description does not list cannot be written in a `case`
 * or a comparison.
 */
import type { ApiError } from '../core/errors.js';
import { ERROR_CODES, type KnownErrorCode } from './types.js';

const KNOWN: ReadonlySet<string> = new Set(ERROR_CODES);

/** The refusal's code when the description lists it; undefined for a code a later revision added. */
export function apiErrorCode(error: ApiError): KnownErrorCode | undefined {
  return KNOWN.has(error.code) ? (error.code as KnownErrorCode) : undefined;
}
