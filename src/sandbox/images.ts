import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiProblem, rateLimited } from './errors.js';
import { RateLimiter } from './ratelimit.js';

const IMAGE_REQUESTS_PER_MINUTE = 600;
/** A 1×1 PNG: every image address of the sandbox opens, without a key. */
const PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/** `/images/…`: no key, their own limit per client address, apart from the keys' limit. */
export function imageHandler(clock?: () => number): (req: IncomingMessage, res: ServerResponse, path: string) => void {
  const limiter = new RateLimiter(IMAGE_REQUESTS_PER_MINUTE, clock);
  return (req, res, path) => {
    const wait = limiter.take(req.socket.remoteAddress ?? 'unknown');
    if (wait > 0) {
      throw rateLimited(`More than ${IMAGE_REQUESTS_PER_MINUTE} image requests a minute from this address.`, wait);
    }
    if (!/^\/images\/[a-z0-9-]+\.png$/.test(path)) throw new ApiProblem(404, 'not_found', `There is no ${path}.`);
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new ApiProblem(405, 'method_not_allowed', 'Images are read with GET.', {}, { Allow: 'GET, HEAD' });
    res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': PIXEL_PNG.length, 'Cache-Control': 'public, max-age=86400' });
    res.end(req.method === 'HEAD' ? undefined : PIXEL_PNG);
  };
}
