/**
 * A bulk row becomes a request body and an idempotency key, or a problem saying why it cannot.
 *
 * Keys: a row's own `idempotencyKey`, else one derived from the request body it produces and how
 * many identical bodies came before it in the file. Running the same file again (or a file with rows
 * added, removed or reordered) sends every earlier row with its earlier key, so the service replays
 * instead of creating twice, while two identical rows in one file still make two links.
 */
import { createHash } from 'node:crypto';
import type { CreateLinkRequest, CustomFieldInput, TenantCustomField } from '../../api/types.js';
import { UsageError, type FieldError } from '../../core/errors.js';
import { LIMITS, RequestChecks, parseAnswer, requireField, withoutUndefined } from '../fields.js';
import { FIELD_PREFIX } from './input.js';
import { canonicalJson } from '../../core/canonical-json.js';

/** What a row that was never sent reports instead of the service's problem. */
export interface RowProblem {
  code: 'invalid_row';
  title: string;
  detail: string;
  errors: FieldError[];
}

export type PreparedRow = { row: number; body: CreateLinkRequest; idempotencyKey: string } | { row: number; problem: RowProblem };

export function invalidRow(row: number, detail: string, errors: FieldError[] = []): { row: number; problem: RowProblem } {
  return { row, problem: { code: 'invalid_row', title: 'Invalid row', detail: `row ${row}: ${detail}`, errors } };
}

/**
 * A record as a request and its key, or an invalid row naming every failed check. Keys are handed
 * out only to rows that will be sent, so fixing a bad row later does not shift the others' keys.
 */
export function prepareRow(row: number, record: Record<string, unknown>, customFields: readonly TenantCustomField[], keys: RowKeys): PreparedRow {
  const checks = new RequestChecks();
  const body = withoutUndefined({
    campaignId: checks.uuid(record.campaignId, 'campaignId', true),
    fullName: checks.requiredText(record.fullName, 'fullName', LIMITS.linkText),
    brandId: checks.uuid(record.brandId, 'brandId', false),
    email: checks.email(record.email, 'email'),
    message: checks.text(record.message, 'message', LIMITS.linkText),
    locale: checks.locale(record.locale, 'locale'),
    customFields: answers(record, customFields, checks),
  }) as CreateLinkRequest;
  const ownKey = checks.text(record.idempotencyKey, 'idempotencyKey', LIMITS.idempotencyKey);
  if (checks.errors.length > 0) return invalidRow(row, checks.errors.map((error) => error.message).join('; '), checks.errors);
  return { row, body, idempotencyKey: ownKey?.trim() ? ownKey : keys.next(body) };
}

/** Answers from `field:<id or label>` members, plus a JSON line's own `customFields`. */
function answers(record: Record<string, unknown>, fields: readonly TenantCustomField[], checks: RequestChecks): CustomFieldInput[] | undefined {
  const given = checks.answers(record.customFields, 'customFields') ?? [];
  for (const [name, value] of Object.entries(record)) {
    if (!name.startsWith(FIELD_PREFIX)) continue;
    try {
      const field = requireField(fields, name.slice(FIELD_PREFIX.length), name);
      if (given.some((answer) => answer.fieldId === field.id)) throw new UsageError(`${name}: "${field.label}" is answered more than once`);
      const answer = parseAnswer(field, typeof value === 'boolean' ? value : String(value ?? ''), name);
      if (answer) given.push(answer);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      checks.add(name, 'invalid', error.message);
    }
  }
  return given.length > 0 ? given : undefined;
}

/** Hands out keys in file order; must see every sent row, in order, exactly once. */
export class RowKeys {
  /** first 16 bytes of a body's hash → how many rows with that body came before */
  private readonly seen = new Map<string, number>();

  next(body: CreateLinkRequest): string {
    const digest = createHash('sha256').update(canonicalJson(body)).digest();
    const id = digest.subarray(0, 16).toString('base64');
    const occurrence = this.seen.get(id) ?? 0;
    this.seen.set(id, occurrence + 1);
    return `svc-bulk-${createHash('sha256').update(digest).update(`#${occurrence}`).digest('hex')}`;
  }
}

