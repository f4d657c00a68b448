/**
 * The API description on the sandbox: `GET {baseUrl}/openapi.json` (no key), and, when asked for
 * (`createSandbox({ validateResponses: true })` or `SVC_SANDBOX_VALIDATE_RESPONSES=1`), a check of
 * every /v1 answer against the document's schema for that operation and status. Both load the
 * generated document and validators lazily, so a sandbox that needs neither never loads them.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { OPERATIONS } from '../../api/generated/constants.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is passed through as JSON
type Document = { servers: unknown[] } & Record<string, any>;

let document: Promise<Document> | undefined;
/** The document's text per origin it was asked through (a sandbox is reached under few names). */
const texts = new Map<string, string>();

/**
 * The document as JSON text, with this sandbox (the origin the client called) as its first server,
 * before production: a tool pointed at the served document talks to the sandbox.
 */
async function openApiText(origin: string): Promise<string> {
  document ??= import('../../api/generated/openapi.json', { with: { type: 'json' } }).then((module) => module.default as unknown as Document);
  let text = texts.get(origin);
  if (text === undefined) {
    const doc = await document;
    const sandbox = { url: `${origin}/v1`, description: 'This sandbox (svc sandbox): a local, stateful implementation of the API.' };
    text = JSON.stringify({ ...doc, servers: [sandbox, ...doc.servers] });
    if (texts.size >= 16) texts.clear();
    texts.set(origin, text);
  }
  return text;
}

/** Whether a request is the document's address (GET or HEAD `/v1/openapi.json`). */
export function isOpenApiRequest(method: string | undefined, path: string): boolean {
  return path === '/v1/openapi.json' && (method === 'GET' || method === 'HEAD');
}

export async function serveOpenApi(req: IncomingMessage, res: ServerResponse, origin: string): Promise<void> {
  const text = await openApiText(origin);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache' });
  res.end(req.method === 'HEAD' ? undefined : text);
}

type ResponseValidators = typeof import('../../api/generated/response-validators.js');

const ROUTES = OPERATIONS.map((op) => ({
  ...op,
  pattern: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[A-Za-z]+\}/g, '[^/:]+')}$`),
}));

function describedRoute(method: string, path: string): (typeof ROUTES)[number] | undefined {
  return ROUTES.find((r) => r.method === (method === 'HEAD' ? 'GET' : method) && r.pattern.test(path));
}

/**
 * What the document says of a request's body: a body sent to an operation that declares none (as
 * POST /webhooks:test) is refused by validating proxies, so it is a disagreement too.
 */
export function requestProblems(method: string, path: string, headers: IncomingMessage['headers']): string[] {
  const route = describedRoute(method, path);
  if (route === undefined || route.requestBody) return [];
  const length = Number(headers['content-length'] ?? 0);
  if (length === 0 && headers['transfer-encoding'] === undefined && headers['content-type'] === undefined) return [];
  return [`${method} ${path}: the request has a body (Content-Type ${headers['content-type'] ?? '(none)'}, ${length} bytes); the document declares none for ${route.operationId}`];
}

/** What the document says of one answer: the problems found, none when it conforms. */
export function responseProblems(
  validators: ResponseValidators,
  method: string,
  path: string,
  status: number,
  headers: Record<string, string | undefined>,
  body: string,
): string[] {
  const route = describedRoute(method, path);
  const described = route === undefined ? undefined : validators.RESPONSES[route.operationId]?.[String(status)];
  const where = `${method} ${path} → ${status}`;
  if (route !== undefined && described === undefined) return [`${where}: status ${status} is not documented for ${route.operationId}`];
  // Paths and methods the document does not describe answer 404/405 problem documents.
  const expected = described ?? { validator: 'ProblemDetail', mediaType: 'application/problem+json' };
  const problems: string[] = [];
  const mediaType = (headers['content-type'] ?? '').split(';')[0].trim();
  if (mediaType !== expected.mediaType) problems.push(`${where}: Content-Type ${mediaType || '(none)'}, the document says ${expected.mediaType}`);
  if (status === 429 && !/^\d+$/.test(headers['retry-after'] ?? '')) problems.push(`${where}: no Retry-After header`);
  if (method === 'HEAD') return problems;
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return [...problems, `${where}: the body is not JSON`];
  }
  const validate = (validators as unknown as Record<string, ResponseValidators['ProblemDetail']>)[expected.validator];
  if (!validate(data)) {
    for (const error of validate.errors ?? []) {
      problems.push(`${where}: ${error.instancePath || '(body)'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`);
    }
  }
  return problems;
}

export interface ResponseCheck {
  /** Checks the request, and the answer `res` gives to it before it is sent. */
  watch(req: IncomingMessage, res: ServerResponse, path: string): void;
}

/** Checks requests and answers as they are sent, recording each disagreement with the document in `violations`. */
export function createResponseCheck(violations: string[], log: (line: string) => void): ResponseCheck {
  let loaded: ResponseValidators | undefined;
  const loading = import('../../api/generated/response-validators.js').then((module) => (loaded = module));
  const record = (problems: string[]): void => {
    for (const problem of problems) {
      violations.push(problem);
      log(`response does not match the API description: ${problem}`);
    }
  };
  return {
    watch(req, res, path) {
      record(requestProblems(req.method ?? 'GET', path, req.headers));
      let status = 200;
      const headers: Record<string, string | undefined> = {};
      const writeHead = res.writeHead.bind(res) as (code: number, headers?: OutgoingHttpHeaders) => ServerResponse;
      res.writeHead = ((code: number, ...rest: unknown[]) => {
        status = code;
        // Headers as an object, or as a flat list of names and values.
        const given = rest.find((arg) => typeof arg === 'object' && arg !== null) as OutgoingHttpHeaders | string[] | undefined;
        const pairs = Array.isArray(given) ? given.flatMap((value, i) => (i % 2 === 0 ? [[value, given[i + 1]]] : [])) : Object.entries(given ?? {});
        for (const [name, value] of pairs) headers[String(name).toLowerCase()] = value === undefined ? undefined : String(value);
        return writeHead(code, given as OutgoingHttpHeaders);
      }) as ServerResponse['writeHead'];
      const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
      res.end = ((chunk?: unknown) => {
        const body = chunk === undefined || typeof chunk === 'function' ? '' : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
        const check = (validators: ResponseValidators): void => {
          try {
            for (const name of ['content-type', 'retry-after']) headers[name] ??= res.getHeader(name)?.toString();
            record(responseProblems(validators, req.method ?? 'GET', path, status, headers, body));
          } catch (err) {
            // A check that fails is reported, and the answer still goes out.
            record([`${req.method} ${path} → ${status}: the check failed: ${String(err)}`]);
          }
        };
        if (loaded !== undefined) {
          check(loaded);
          return end(chunk);
        }
        // Not loaded yet: the answer waits for the check, so a test sees the violation first.
        void loading.then(check, (err: unknown) => record([`validators failed to load: ${String(err)}`])).finally(() => end(chunk));
        return res;
      }) as ServerResponse['end'];
    },
  };
}
