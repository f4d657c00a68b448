/**
 * What a tool hands the model: data, never instructions. A result is the JSON value itself (API
 * strings stay JSON strings, never spliced into prose), bounded in size (a list keeps the items
 * that fit and says how many it left out and how to get them); an error is the API's problem
 * document (code, detail, field errors) with svc's hint. No key or webhook secret leaves: every
 * text is scrubbed of them before it is sent.
 */
import { redact } from '../../api/keys.js';
import { ApiError, SvcError } from '../../core/errors.js';

/** The most characters of JSON a result carries (about 12 000 tokens). */
export const MAX_RESULT_CHARS = 48_000;

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/**
 * A successful result: the value as JSON text and as structured content. Lists are bounded by
 * boundedList; anything else still too large (a store with a very long catalogue) is cut to its
 * first MAX_RESULT_CHARS characters of JSON, as a string, saying so.
 */
export function dataResult(value: Record<string, unknown>, secrets: readonly string[]): ToolResult {
  let safe = scrubbed(value, secrets);
  const text = JSON.stringify(safe);
  if (text.length > MAX_RESULT_CHARS + OBJECT_SLACK) {
    safe = {
      truncated: { chars: text.length, shown: MAX_RESULT_CHARS, howToGetMore: 'the answer is too large to return whole: narrow the call (a filter, a smaller limit, a later since)' },
      partialJson: text.slice(0, MAX_RESULT_CHARS),
    };
  }
  return { content: [{ type: 'text', text: JSON.stringify(safe) }], structuredContent: safe };
}

/** What a bounded list's other members may add to it before the whole is cut. */
const OBJECT_SLACK = 16_000;

/** A failed call: `{error: {status?, code, detail, errors?, hint?, …problem members}}`. */
export function errorResult(error: unknown, secrets: readonly string[]): ToolResult {
  const safe = scrubbed({ error: describeError(error) }, secrets);
  return { content: [{ type: 'text', text: JSON.stringify(safe) }], structuredContent: safe, isError: true };
}

function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof ApiError) {
    // The problem document as the service sent it (type, title, status, code, detail, errors, …).
    return { ...error.problem, code: error.code, ...(error.hint ? { hint: error.hint } : {}) };
  }
  if (error instanceof SvcError) return { code: error.code, detail: error.message, ...(error.hint ? { hint: error.hint } : {}) };
  return { code: 'internal_error', detail: error instanceof Error ? error.message : String(error) };
}

/** The value with every key and secret replaced (as --debug does), by a round trip through its JSON text. */
function scrubbed(value: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> {
  const text = JSON.stringify(value);
  const clean = redact(text, secrets.filter((secret) => secret.length > 0));
  return clean === text ? value : (JSON.parse(clean) as Record<string, unknown>);
}

/** How a cut list tells the caller what it left out. */
export interface Cut {
  /** items in the result */
  shown: number;
  /** items the page had */
  of: number;
  howToGetMore: string;
}

/**
 * A list result within MAX_RESULT_CHARS: as many of the items as fit, first first. When some are
 * left out, `truncated` says so and how to get them (`more`), and the page's own cursor is dropped
 * (following it would skip the left-out items).
 */
export function boundedList(key: string, items: unknown[], rest: Record<string, unknown>, more: (shown: number) => string): Record<string, unknown> {
  const whole = { [key]: items, ...rest };
  if (JSON.stringify(whole).length <= MAX_RESULT_CHARS) return whole;
  const { nextCursor: _dropped, ...kept } = rest;
  let size = JSON.stringify({ [key]: [], ...kept, truncated: { shown: 0, of: items.length, howToGetMore: more(0) } }).length;
  let shown = 0;
  for (const item of items) {
    const itemSize = JSON.stringify(item).length + 1;
    if (size + itemSize > MAX_RESULT_CHARS - 200) break;
    size += itemSize;
    shown++;
  }
  const truncated: Cut = { shown, of: items.length, howToGetMore: more(shown) };
  return { [key]: items.slice(0, shown), ...kept, truncated };
}
