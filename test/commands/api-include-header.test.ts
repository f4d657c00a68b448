/** `svc api -i` (status line and headers before the body) and `-H 'Name: value'`, against the API double. */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiDouble, doubleEachTest } from '../helpers/double.js';
import { runInProcess, runOn } from '../helpers/run.js';

const KEY = 'svc_live_0123456789abcdefghijklmnopqrstuv';
const DATE = 'Tue, 24 Nov 2026 06:00:00 GMT';
let api: ApiDouble;
let env: Record<string, string>;

doubleEachTest((double) => {
  api = double;
  env = { SVC_BASE_URL: api.baseUrl, SVC_API_KEY: KEY, SVC_CONFIG_DIR: '/nonexistent-svc-config' };
});

describe('svc api -i', () => {
  it('prints the status line and headers, a blank line, then the body (stdout), like curl -i', async () => {
    api.on('GET /me', { status: 200, headers: { date: DATE, 'request-id': 'req_1' }, body: { ok: true } });
    const result = await runInProcess(['api', '-i', 'GET', '/me'], env);
    expect(result).toEqual({
      exitCode: 0,
      stdout: [
        'HTTP/1.1 200 OK',
        'content-type: application/json',
        `date: ${DATE}`,
        'request-id: req_1',
        'connection: keep-alive',
        'keep-alive: timeout=5',
        'transfer-encoding: chunked',
        '',
        '{"ok":true}',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('a 204 has no body: only the status and headers', async () => {
    api.on('DELETE /things/1', { status: 204, headers: { date: DATE } });
    const result = await runInProcess(['api', '--include', 'DELETE', '/things/1'], env);
    expect(result.stdout).toBe(['HTTP/1.1 204 No Content', 'content-type: application/json', `date: ${DATE}`, 'connection: keep-alive', 'keep-alive: timeout=5', '', ''].join('\n'));
    expect(result.exitCode).toBe(0);
  });

  it('is refused with --paginate', async () => {
    const result = await runInProcess(['api', '-i', 'GET', '/events', '--paginate'], env);
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: 'error: usage_error: --include: not with --paginate (every page has its own status and headers)\n' });
    expect(api.requests).toEqual([]);
  });
});

describe('svc api -i on a terminal', () => {
  /** A server whose header carries a C1 CSI (0x9b), which a terminal would obey. */
  let server: net.Server;
  let baseUrl: string;
  beforeEach(async () => {
    server = net.createServer((socket) => {
      socket.once('data', () => {
        const head = 'HTTP/1.1 200 OK\r\nX-Note: a\x9b2Jb\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}';
        socket.end(Buffer.from(head, 'latin1'));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('shows control characters of the server\'s headers as escapes', async () => {
    const env = { SVC_BASE_URL: baseUrl, SVC_API_KEY: KEY, SVC_CONFIG_DIR: '/nonexistent-svc-config' };
    const { exitCode, stdout: out } = await runOn({ tty: { stdout: true }, columns: 80, env, input: '' }, ['api', '-i', 'GET', '/me']);
    expect(out).toBe(['HTTP/1.1 200 OK', 'x-note: a\\u009b2Jb', 'content-type: application/json', 'content-length: 2', 'connection: close', '', '{}', ''].join('\n'));
    expect(exitCode).toBe(0);
  });
});

describe('svc api -H', () => {
  it('adds request headers; a given Authorization replaces the key and is not printed', async () => {
    api.on('GET /me', { status: 200, body: { ok: true } });
    const result = await runInProcess(['api', 'GET', '/me', '-H', 'Accept-Language: de-DE', '-H', 'X-Trace:  abc ', '-H', 'Authorization: Bearer svc_live_other', '--debug'], env);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('{"ok":true}\n');
    expect(api.requests).toHaveLength(1);
    const sent = api.requests[0].headers;
    expect([sent['accept-language'], sent['x-trace'], sent.authorization]).toEqual(['de-DE', 'abc', 'Bearer svc_live_other']);
    expect(result.stderr).not.toContain('svc_live_other');
    expect(result.stderr).toContain('> authorization: Bearer [redacted]\n');
  });

  it('refuses a header without a colon, without repeating it (it may be a token)', async () => {
    const result = await runInProcess(['api', 'GET', '/me', '-H', 'Bearer svc_live_secret'], env);
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: 'error: usage_error: -H: expected "Name: value", a header name, a colon and its value\n' });
    expect(api.requests).toEqual([]);
  });

  it('refuses a bad name and headers that frame the connection', async () => {
    const bad = await runInProcess(['api', 'GET', '/me', '-H', 'X-Ok: 1', '-H', 'Bad Name: x'], env);
    expect(bad).toEqual({ exitCode: 2, stdout: '', stderr: 'error: usage_error: -H (#2): the name before the colon is not a valid header name\n' });
    const framing = await runInProcess(['api', 'GET', '/me', '-H', 'Content-Length: 5'], env);
    expect(framing).toEqual({ exitCode: 2, stdout: '', stderr: "error: usage_error: -H: Content-Length is set by svc's HTTP client and cannot be given\n" });
    expect(api.requests).toEqual([]);
  });
});
