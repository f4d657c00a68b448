/**
 * The sandbox in-process for command-layer tests: the same seed data as `svc sandbox` (seed 1),
 * listening on a free loopback port, with the handle the spawned-process tests use. Closed after the
 * test file by setup.ts (or earlier with stop()).
 */
import { createSandbox, type Sandbox, type SandboxKeyInfo } from '../../src/sandbox/app.js';
import { listen } from '../../src/sandbox/server.js';
import { adminCall } from './admin.js';
import { closeLater, tempDir } from './cleanup.js';

export interface InProcessSandbox {
  baseUrl: string;
  adminUrl: string;
  keys: SandboxKeyInfo[];
  sandbox: Sandbox;
  key(name: string): SandboxKeyInfo;
  /** env for running svc against this sandbox with the named key (own config directory) */
  env(keyName?: string): Record<string, string>;
  configDir: string;
  /** admin API call */
  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

/** `log` is given each request the sandbox answers (`GET /v1/events?… 200 1.2ms`), as `svc sandbox` logs them. */
export async function startSandbox(options: { seed?: number; log?: (line: string) => void } = {}): Promise<InProcessSandbox> {
  const sandbox = createSandbox({ seed: options.seed ?? 1, ...(options.log === undefined ? {} : { log: options.log }) });
  const server = await listen(sandbox, '127.0.0.1', 0);
  closeLater(() => server.close());
  const info = sandbox.info(server.origin);
  const configDir = tempDir();
  const key = (name: string): SandboxKeyInfo => {
    const found = info.keys.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no sandbox key ${name}`);
    return found;
  };
  return {
    ...info,
    sandbox,
    configDir,
    key,
    env: (keyName = 'full') => ({ SVC_CONFIG_DIR: configDir, SVC_BASE_URL: info.baseUrl, SVC_API_KEY: key(keyName).apiKey }),
    admin: (method, path, body) => adminCall(info.adminUrl, method, path, body),
    stop: () => server.close(),
  };
}

/** Records `count` events through the team's admin API (POST /links), so every key's feed gets them. */
export async function addEvents(sandbox: InProcessSandbox, count: number): Promise<void> {
  const brandId = sandbox.key('full').brandIds[0];
  for (let i = 0; i < count; i++) {
    const { status } = await sandbox.admin('POST', '/links', { brandId, fullName: `Player ${i}` });
    if (status >= 300) throw new Error(`admin POST /links answered ${status}`);
  }
}

/** The whole event feed of the `full` key read directly, each item as its exact JSON line. */
export async function feedLines(sandbox: InProcessSandbox): Promise<string[]> {
  const lines: string[] = [];
  let after: string | null = null;
  for (;;) {
    const url = `${sandbox.baseUrl}/events?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${sandbox.key('full').apiKey}` } });
    const page = (await response.json()) as { items: unknown[]; nextCursor: string | null };
    if (page.items.length === 0) return lines;
    lines.push(...page.items.map((item) => JSON.stringify(item)));
    after = page.nextCursor;
  }
}
