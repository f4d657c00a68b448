/**
 * A tool of `svc mcp`: its name, the words an assistant picks it by, its input schema (from the
 * API description), the protocol's hints, and what it does with one call's arguments.
 */
import type { ApiClient } from '../../api/client.js';
import type { Context } from '../../app/context.js';
import { namesFor, type Names } from '../../app/names.js';
import type { JsonSchema } from './schema.js';

export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What one call has: the run's context, the API client, and a signal that aborts when the call is cancelled. */
export interface Call {
  ctx: Context;
  client: ApiClient;
  signal: AbortSignal;
  /** brand and campaign names, read once per call that asks for them (never an error) */
  names(options?: { campaigns?: boolean }): Promise<Names>;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  schema: JsonSchema;
  /** a tool that changes something: listed only with --allow-write */
  write: boolean;
  hints: ToolHints;
  run(args: Record<string, unknown>, call: Call): Promise<Record<string, unknown>>;
}

export const READ_ONLY: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

export function callOf(ctx: Context, client: ApiClient, signal: AbortSignal): Call {
  return { ctx, client, signal, names: (options = {}) => namesFor(client, signal, options) };
}

/** An object schema that refuses members it does not name (a misspelt argument is an error, not ignored). */
export function objectSchema(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false };
}

/** The brand's and campaign's names beside their ids in a link or order (the API's object, names added). */
export function withNames<T>(record: T, names: Names): T {
  if (typeof record !== 'object' || record === null) return record;
  const value = record as Record<string, unknown>;
  const brandName = names.brand(value.brandId);
  const campaignName = names.campaign(value.campaignId);
  if (!brandName && !campaignName) return record;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    out[key] = member;
    if (key === 'brandId' && brandName) out.brandName = brandName;
    if (key === 'campaignId' && campaignName) out.campaignName = campaignName;
  }
  return out as T;
}

/** A string argument, or undefined. */
export function text(args: Record<string, unknown>, name: string): string | undefined {
  const value = args[name];
  return typeof value === 'string' ? value : undefined;
}
