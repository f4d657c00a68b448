/**
 * Typed errors and the one place that maps them to the exit codes (docs/output.md).
 * Commands throw; `src/cli.ts` catches, prints and returns the code; only `bin/` exits.
 */
import { jsonText, terminalSafeLine } from './sanitize.js';

export const ExitCode = {
  ok: 0,
  refused: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  unavailable: 5,
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** One entry of a problem's `errors[]`. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/** application/problem+json as the API sends it; unknown members are kept. */
export interface Problem {
  type?: string;
  title?: string;
  status: number;
  code?: string;
  detail?: string;
  errors?: FieldError[];
  coinPrice?: string;
  currentStatus?: string;
  reason?: string;
  [extra: string]: unknown;
}

/** Base class: every error svc reports on purpose. */
export class SvcError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue,
    readonly code: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The problem-shaped document printed with `-o json|jsonl`; errors svc found itself carry no HTTP status. */
  toProblem(): Partial<Problem> {
    return { code: this.code, detail: this.message, ...(this.hint ? { hint: this.hint } : {}) };
  }
}

/** Bad invocation found before any request (exit 2). The message starts with the flag or argument it is about. */
export class UsageError extends SvcError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.usage, 'usage_error', hint);
  }
}

/** No API key configured, or the key was refused (exit 4). */
export class AuthError extends SvcError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.auth, 'no_api_key', hint);
  }
}

/** The user pressed Ctrl-C (exit 130). */
export class InterruptedError extends SvcError {
  constructor() {
    super('interrupted', ExitCode.interrupted, 'interrupted');
  }
}

/** A command's own verdict of failure that is not an API refusal (exit 1), e.g. an invalid signature. */
export class FailureError extends SvcError {
  constructor(message: string, code = 'failed', hint?: string) {
    super(message, ExitCode.refused, code, hint);
  }
}

/** The API answered with a problem document (or an error status). */
export class ApiError extends SvcError {
  readonly status: number;
  readonly problem: Problem;

  /** `note` is added to the message for people; the problem document itself is kept as the service sent it. */
  constructor(problem: Problem, private readonly opts: { retriesExhausted?: boolean; hint?: string; note?: string } = {}) {
    const code = problem.code ?? `http_${problem.status}`;
    const detail = problem.detail ?? problem.title ?? `HTTP ${problem.status}`;
    super(opts.note ? `${detail} (${opts.note})` : detail, exitCodeForStatus(problem.status, opts.retriesExhausted), code, opts.hint);
    this.status = problem.status;
    this.problem = problem;
  }

  /** The same refusal (status, code, exit code and the service's members kept), told in words for people. */
  explained(detail: string, hint?: string): ApiError {
    return new ApiError({ ...this.problem, detail }, { ...this.opts, note: undefined, hint: hint ?? this.hint });
  }

  get fieldErrors(): FieldError[] {
    return Array.isArray(this.problem.errors) ? this.problem.errors : [];
  }

  override toProblem(): Problem {
    return this.problem;
  }
}

/** The service could not be reached or kept failing after every retry (exit 5). */
export class UnavailableError extends SvcError {
  /** false for a failure that trying again cannot cure (the same server would answer the same way) */
  readonly transient: boolean = true;

  constructor(message: string, code = 'unavailable', override readonly cause?: unknown, hint?: string) {
    super(message, ExitCode.unavailable, code, hint);
  }
}

/** Failures worth waiting out: the service is busy or unreachable, not refusing us or misbehaving. */
export function isTransient(error: unknown): boolean {
  return error instanceof SvcError && error.exitCode === ExitCode.unavailable && !(error instanceof UnavailableError && !error.transient);
}

/**
 * What a failure prints on stderr for a person: `error: <code>: <detail>`, one line per `errors[]`
 * entry and the hint. Every part may be the server's text (an HTML page of a misbehaving proxy, a
 * hostile `detail`): each is made safe for a terminal and kept to its line.
 */
export function errorLines(error: SvcError): string[] {
  const problem = error.toProblem();
  const entries: unknown[] = Array.isArray(problem.errors) ? problem.errors : [];
  return [
    `error: ${terminalSafeLine(error.code)}: ${terminalSafeLine(error.message)}`,
    ...entries.map((entry) => {
      const { field, code, message } = (entry ?? {}) as Partial<Record<keyof FieldError, unknown>>;
      return `  ${terminalSafeLine(field)}: ${terminalSafeLine(code)}: ${terminalSafeLine(message)}`;
    }),
    ...(error.hint ? [`hint: ${terminalSafeLine(error.hint)}`] : []),
  ];
}

/** The problem document as one JSON line for `-o json|jsonl`: the same data, safe on a terminal. */
export function problemLine(problem: unknown, terminal: boolean): string {
  return jsonText(problem, undefined, terminal);
}

function exitCodeForStatus(status: number, retriesExhausted = false): ExitCodeValue {
  if (status === 404) return ExitCode.notFound;
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 429 || status >= 500 || retriesExhausted) return ExitCode.unavailable;
  return ExitCode.refused;
}
