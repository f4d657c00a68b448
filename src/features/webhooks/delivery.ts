/**
 * One request to `webhooks listen` as the receiver sees it: its raw body (read within a bound), the
 * headers, and the event id and type it claims. Nothing here is trusted: the verifier judges it.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/** Deliveries are small JSON events; anything over 1 MiB is refused (413) before it is kept. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** After a 413, the rest of the body is read and dropped up to this much, then the connection is cut. */
const MAX_DRAINED_BYTES = 16 * 1024 * 1024;

export interface Delivery {
  receivedAt: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** the event id from the body, else the Svc-Event-Id header; untrusted */
  id: string;
  type: string;
}

export interface Verdict {
  ok: boolean;
  /** the HTTP status answered */
  status: number;
  /** the reason when not ok: malformed_header, no_matching_signature, … */
  error?: string;
  detail?: string;
  duplicate?: boolean;
  /** why the delivery could not be saved (--save-dir); it was answered 500 */
  notSaved?: string;
}

export function answer(response: ServerResponse, status: number, body: Record<string, unknown>): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export function headerText(value: string | string[] | undefined): string {
  return typeof value === 'string' ? value : '';
}

/** The event id and type: from the body when it is a JSON object, else the Svc-Event-Id header. */
export function identify(body: Buffer, headers: IncomingHttpHeaders): { id: string; type: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const object = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  const scalar = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
  return { id: scalar(object.id) || headerText(headers['svc-event-id']), type: scalar(object.type) };
}

/**
 * The raw bytes, unparsed (signatures cover them exactly); null as soon as they pass the limit, by the
 * declared length or by what arrived (nothing more is kept). The request is not destroyed, so the
 * sender still reads the 413.
 */
export function readBody(request: IncomingMessage): Promise<Buffer | null> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) {
        chunks.push(chunk);
        return;
      }
      chunks = [];
      request.off('data', onData);
      request.off('end', onEnd);
      resolve(null);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', reject);
  });
}

/**
 * After a 413: the rest of the body is read and dropped (so the sender reads the answer instead of a
 * reset), up to a bound; a sender that keeps going past it loses the connection.
 */
export function drain(request: IncomingMessage): void {
  let drained = 0;
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > MAX_DRAINED_BYTES) request.socket.destroy();
  });
  request.on('error', () => undefined);
  request.resume();
}
