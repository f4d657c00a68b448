import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ApiProblem } from '../errors.js';

/** A form body larger than this is refused (413): the pages' forms send a few kilobytes at most. */
const MAX_FORM_BYTES = 64 * 1024;

/** Whether a request sends a form (what the pages' forms post). */
export function isFormPost(req: IncomingMessage): boolean {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return req.method === 'POST' && type === 'application/x-www-form-urlencoded';
}

/** Whether a GET is a browser asking for a page (its Accept names text/html). */
export function wantsPage(req: IncomingMessage): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && /(^|,)\s*text\/html\s*(;|,|$)/i.test(req.headers.accept ?? '');
}

export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) {
      req.socket.destroy();
      throw new ApiProblem(413, 'payload_too_large', 'The form is larger than 64 KiB.');
    }
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Protection of the pages' forms against cross-site posts: each form carries a token made from a
 * random secret of this sandbox (the workspace's one token, or one per claim link, so a player's
 * page never holds the team's token), and a POST must return it; its Origin, when sent, must be the
 * page's own, and Sec-Fetch-Site, when sent, same-origin. Anything else is 403 and changes nothing.
 */
export class FormGuard {
  private readonly secret = randomBytes(32);

  token(purpose: string): string {
    return createHmac('sha256', this.secret).update(purpose).digest('base64url');
  }

  check(req: IncomingMessage, form: URLSearchParams, purpose: string): void {
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`) {
      throw new ApiProblem(403, 'forbidden', 'The form was posted from another site.');
    }
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      throw new ApiProblem(403, 'forbidden', 'The form was posted from another site.');
    }
    const sent = Buffer.from(form.get('csrf') ?? '');
    const expected = Buffer.from(this.token(purpose));
    if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
      throw new ApiProblem(403, 'forbidden', 'The form\'s security token is missing or wrong; reload the page and try again.');
    }
  }
}
