/** Codes allowed inside `errors[]` of an invalid_request problem. */
export type FieldErrorCode = 'required' | 'invalid' | 'too_long' | 'not_enabled';

export interface FieldError {
  field: string;
  code: FieldErrorCode;
  message: string;
}

/** Extra members some problems carry (openapi/openapi.yaml, ProblemDetail). */
export interface ProblemExtras {
  errors?: FieldError[];
  coinPrice?: string;
  currentStatus?: string;
  reason?: string;
}

const TITLES: Record<string, string> = {
  invalid_request: 'Invalid request',
  idempotency_key_required: 'Idempotency key required',
  idempotency_key_invalid: 'Idempotency key invalid',
  invalid_api_key: 'Invalid API key',
  insufficient_scope: 'Insufficient scope',
  not_found: 'Not found',
  idempotency_request_in_progress: 'Request in progress',
  not_cancellable: 'Not cancellable',
  out_of_stock: 'Out of stock',
  price_changed: 'Price changed',
  idempotency_key_reused: 'Idempotency key reused',
  campaign_not_found: 'Campaign not found',
  campaign_not_active: 'Campaign not active',
  reward_store_not_found: 'Reward store not found',
  reward_store_not_live: 'Reward store not live',
  brand_not_found: 'Brand not found',
  gift_not_available: 'Gift not available',
  rate_limited: 'Too many requests',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  not_acceptable: 'Not acceptable',
  method_not_allowed: 'Method not allowed',
  internal_error: 'Internal server error',
  invalid_transition: 'Invalid transition',
  forbidden: 'Forbidden',
};

/**
 * Every refusal of the sandbox is thrown as an ApiProblem and written by `sendProblem`, so all
 * errors share the ProblemDetail shape of the real API.
 */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly extras: ProblemExtras = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(`${code}: ${detail}`);
  }

  toJSON(): Record<string, unknown> {
    return {
      type: `https://docs.svc.example/errors/${this.code}`,
      title: TITLES[this.code] ?? this.code,
      status: this.status,
      code: this.code,
      detail: this.detail,
      ...this.extras,
    };
  }
}

export function invalidRequest(errors: FieldError[], detail?: string): ApiProblem {
  const summary = detail ?? errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return new ApiProblem(400, 'invalid_request', summary, { errors });
}

/** One field's problem, with its own summary as the detail. */
export function invalidField(field: string, code: FieldErrorCode, message: string, detail = message): ApiProblem {
  return invalidRequest([{ field, code, message }], detail);
}

export function rateLimited(detail: string, retryAfterSeconds: number): ApiProblem {
  return new ApiProblem(429, 'rate_limited', detail, {}, { 'Retry-After': String(retryAfterSeconds) });
}

export function notFound(what: string): ApiProblem {
  return new ApiProblem(404, 'not_found', `${what} was not found or is not accessible with this key.`);
}
