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
  /** errors the client's transport reported (a line on stdout that is not a protocol message is one) */
  errors: string[];
  stderr: () => string;
  close(): Promise<void>;
}

/** A tool's answer: its structured content (the JSON it carries), its text, and whether it is an error. */
export interface ToolAnswer {
  isError: boolean;
  data: Record<string, unknown>;
  text: string;
}

export async function toolCall(session: McpSession, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const result = await session.client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[]).map((part) => part.text).join('');
  return { isError: result.isError === true, data: (result.structuredContent ?? {}) as Record<string, unknown>, text };
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
  const errors: string[] = [];
  client.onerror = (error) => errors.push(error.message);
  await client.connect(transport);
  // Recorded after the opening exchange too: the SDK sets onmessage in connect.
  const onmessage = transport.onmessage;
  transport.onmessage = (message, ...rest) => {
    received.push(JSON.stringify(message));
    onmessage?.call(transport, message, ...rest);
  };
  const close = () => client.close();
  closeLater(close);
  return { client, received, errors, stderr: () => stderr, close };
}
