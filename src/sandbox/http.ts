import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiProblem, invalidField } from './errors.js';

const MAX_BODY_BYTES = 10 * 1024 * 1024;

export function isLoopback(address: string | undefined): boolean {
  return address !== undefined && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));
}

/** Whether an Accept header admits JSON (a missing header does). */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const quality = params.find((p) => p.startsWith('q='));
    if (quality !== undefined && Number(quality.slice(2)) === 0) return false;
    return ['*/*', 'application/*', 'application/json', 'application/problem+json'].includes(type);
  });
}

/**
 * Reads a JSON body: 415 when a body is not declared application/json, 413 past 10 MB (the rest is
 * not read), 400 when it does not parse. No body gives undefined.
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
  const tooLarge = (): ApiProblem =>
    new ApiProblem(413, 'payload_too_large', 'The request body is larger than 10 MB.', {}, { Connection: 'close' });
  if (Number(declaredLength) > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = await new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // Stop reading here; the 413 goes out with Connection: close.
        req.off('data', onData);
        req.pause();
        reject(tooLarge());
        return;
      }
      received.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(received));
    req.once('error', reject);
  });
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
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

export function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  send(res, status, 'application/json', body, headers);
}

/** The one way a refusal reaches the client: the ProblemDetail document and the problem's headers. */
export function sendProblem(res: ServerResponse, problem: ApiProblem): void {
  send(res, problem.status, 'application/problem+json', JSON.stringify(problem), problem.headers);
}
