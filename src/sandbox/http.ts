import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiProblem, invalidField } from './errors.js';

const MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * A request target of plain path segments (letters, digits, `_`, `:`, `-`, dots inside a segment)
 * and a printable query without a fragment: read as it is, since URL parsing would leave it
 * unchanged. Anything else (escapes, dot segments, `//`, other characters) goes through URL.
 */
const PLAIN_TARGET = /^((?:\/[\w:-]+(?:\.[\w:-]+)*)+\/?|\/)(?:\?([!-"$-~]*))?$/;

/** The query of a target without one: shared, read only. */
const NO_QUERY = new URLSearchParams();

/** The path (percent-decoded; 404 when it cannot be) and query of a request target. */
export function parseTarget(raw: string): { path: string; query: URLSearchParams } {
  const plain = PLAIN_TARGET.exec(raw);
  if (plain !== null) return { path: plain[1], query: plain[2] === undefined ? NO_QUERY : new URLSearchParams(plain[2]) };
  const url = new URL(raw, 'http://sandbox.invalid');
  try {
    return { path: decodeURIComponent(url.pathname), query: url.searchParams };
  } catch {
    throw new ApiProblem(404, 'not_found', `There is no ${url.pathname}.`);
  }
}

/** A qvalue as RFC 9110 writes it: 0 to 1 with at most three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * Whether an Accept header admits application/json (a missing or empty header does). The most
 * specific range that matches decides (`application/json`, then `application/*`, then `*\/*`), with
 * its q-value: q=0 excludes. A range with an unreadable q-value is ignored. So
 * `application/json;q=0, *\/*`, `application/problem+json` and `text/html` exclude JSON.
 */
export function acceptsJson(accept: string | undefined): boolean {
  // What nearly every client sends (svc among them), decided without parsing.
  if (accept === undefined || accept === 'application/json' || accept === '*/*') return true;
  if (accept.trim() === '') return true;
  let specificity = -1;
  let quality = 0;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';');
    const rank = JSON_RANGES.indexOf(type.trim().toLowerCase());
    if (rank === -1 || rank < specificity) continue;
    let q = 1;
    for (const param of params) {
      const [name, value = ''] = param.split('=');
      if (name.trim().toLowerCase() !== 'q') continue;
      q = QVALUE.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    }
    if (Number.isNaN(q)) continue;
    // Equally specific ranges (a repeated one): the highest q counts.
    quality = rank > specificity ? q : Math.max(quality, q);
    specificity = rank;
  }
  return quality > 0;
}

/** The media ranges that match application/json, least specific first. */
const JSON_RANGES = ['*/*', 'application/*', 'application/json'];

/** Deepest nesting of arrays and objects a body may have; deeper is 400 before it is parsed. */
export const MAX_BODY_DEPTH = 64;
/**
 * After a 413 the rest of the upload is read and thrown away (so the client can finish sending and
 * read the answer, instead of meeting a reset connection); past this much, the connection is cut.
 */
const MAX_DISCARDED_BYTES = 1024 * 1024 * 1024;

/**
 * Reads and discards the rest of a request body, chunk by chunk without keeping any; resolves when
 * the body has ended or the connection has gone.
 */
function discardRest(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    let discarded = 0;
    req.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > MAX_DISCARDED_BYTES) req.socket.destroy();
    });
    req.once('end', () => resolve());
    req.once('close', () => resolve());
    req.resume();
  });
}

/**
 * The 413 for a body past 10 MB, answered once the rest of the upload has been read and discarded:
 * closing a socket with unread data resets it (the client sees EPIPE or ECONNRESET instead of the
 * answer), and an answer sent before the upload ends stalls clients that write piece by piece (node's
 * own http client stops writing once its response has ended on a keep-alive connection).
 */
async function refuseTooLarge(req: IncomingMessage): Promise<never> {
  await discardRest(req);
  throw new ApiProblem(413, 'payload_too_large', 'The request body is larger than 10 MB.');
}

/**
 * Whether JSON text nests arrays and objects deeper than `max` (brackets inside strings do not
 * count). One linear pass, no recursion: run before parsing, so no later step (canonicalising,
 * checking) ever meets a deep structure.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/**
 * Reads a JSON body: 415 when a body is not declared application/json, 413 past 10 MB, 400 when it
 * nests deeper than 64 levels or does not parse. No body gives undefined. Past 10 MB nothing more
 * is kept: the rest is read and discarded, then the 413 goes out.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const declaredLength = req.headers['content-length'];
  const hasBody = (declaredLength !== undefined && Number(declaredLength) > 0) || req.headers['transfer-encoding'] !== undefined;
  const contentType = req.headers['content-type'];
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  // A body must be declared application/json; so must an empty one that declares another type.
  if ((hasBody || (contentType !== undefined && contentType.trim() !== '')) && mediaType !== 'application/json') {
    throw new ApiProblem(415, 'unsupported_media_type', 'Send the request body as application/json.');
  }
  if (!hasBody) return undefined;
  if (Number(declaredLength) > MAX_BODY_BYTES) return refuseTooLarge(req);
  const chunks: Buffer[] | undefined = await new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // Keep nothing more; the 413 follows.
        req.off('data', onData);
        received.length = 0;
        resolve(undefined);
        return;
      }
      received.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(received));
    req.once('error', reject);
  });
  if (chunks === undefined) return refuseTooLarge(req);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  if (nestsDeeperThan(text, MAX_BODY_DEPTH)) {
    throw invalidField('body', 'invalid', `The request body nests deeper than ${MAX_BODY_DEPTH} levels.`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidField('body', 'invalid', 'The request body is not valid JSON.');
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, body: string, headers?: Record<string, string>): void {
  // Most answers carry no headers of their own: the two headers as a flat list, no object to build.
  if (headers === undefined) {
    res.writeHead(status, ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body))]);
    res.end(body);
  } else {
    send(res, status, 'application/json', body, headers);
  }
}

/** The one way a refusal reaches the client: the ProblemDetail document and the problem's headers. */
export function sendProblem(res: ServerResponse, problem: ApiProblem): void {
  send(res, problem.status, 'application/problem+json', JSON.stringify(problem), problem.headers);
}
