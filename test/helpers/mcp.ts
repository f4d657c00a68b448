/**
 * An MCP client (the SDK's own) driving the built `bin/svc mcp` over stdio, as an assistant does,
 * against the in-process sandbox. Closed after the test file; everything the client received is
 * kept (`received`), for the test that no key or secret ever reaches it.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { PassThrough } from 'node:stream';
import { BIN } from './svc.js';
import { closeLater } from './cleanup.js';

export interface McpSession {
  client: Client;
  /** every message the client received, as JSON text */
  received: string[];
  stderr: () => string;
  close(): Promise<void>;
}

export async function startMcp(args: string[], env: Record<string, string>): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  (transport.stderr as PassThrough | null)?.on('data', (chunk) => (stderr += chunk));
  const received: string[] = [];
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(transport);
  // Recorded after the opening exchange too: the SDK sets onmessage in connect.
  const onmessage = transport.onmessage;
  transport.onmessage = (message, ...rest) => {
    received.push(JSON.stringify(message));
    onmessage?.call(transport, message, ...rest);
  };
  const close = () => client.close();
  closeLater(close);
  return { client, received, stderr: () => stderr, close };
}
