/** A request --dry-run prints instead of sending (ClientOptions.dryRun), as data. */

/** What --dry-run prints for a request it does not send. */
export interface DryRunRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A request as --dry-run prints it: header names as HTTP writes them (`Idempotency-Key`), Authorization redacted, the body as JSON. */
export function dryRunRequest(method: string, url: string, headers: Record<string, string>, payload: string | undefined): DryRunRequest {
  const named = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase()),
      name === 'authorization' ? '[redacted]' : value,
    ]),
  );
  let body: unknown = null;
  if (payload !== undefined) {
    try {
      body = JSON.parse(payload);
    } catch {
      body = payload;
    }
  }
  return { method: method.toUpperCase(), url, headers: named, body };
}
