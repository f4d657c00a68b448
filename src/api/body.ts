/**
 * Reading a response body with a bound: at most MAX_RESPONSE_BYTES (32 MiB) per answer. A body that
 * declares more, or sends more, is not read further (the connection is dropped) and the call fails
 * with `response_too_large` (exit 5), never retried: the same server would send the same answer.
 */
import type { Dispatcher } from 'undici';
import { UnavailableError } from '../core/errors.js';

export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export class ResponseTooLargeError extends UnavailableError {
  override readonly transient = false;

  constructor(what: string, limit = MAX_RESPONSE_BYTES) {
    super(`${what}: the answer is larger than ${limit / (1024 * 1024)} MiB; svc stopped reading it (not retried)`, 'response_too_large');
  }
}

/** The body as text, or ResponseTooLargeError as soon as it passes `limit` (declared or received). */
export async function readBoundedText(response: Dispatcher.ResponseData, what: string, limit = MAX_RESPONSE_BYTES): Promise<string> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    response.body.destroy();
    throw new ResponseTooLargeError(what, limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      response.body.destroy();
      throw new ResponseTooLargeError(what, limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/**
 * The start of a body as text: at `limit` bytes the body is dropped unread (that connection closes),
 * so neither memory nor time grows with what a receiver sends.
 */
export async function readBodyStart(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  // Nothing wanted: undici's dump reads a short answer (keeping the connection) and drops a long one.
  if (limit <= 0) return body.dump().then(() => '');
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const part = chunk.subarray(0, limit - kept);
    chunks.push(part);
    kept += part.length;
    if (kept >= limit) break;
  }
  body.destroy();
  return Buffer.concat(chunks).toString('utf8');
}
