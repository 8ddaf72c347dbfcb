/**
 * What can go wrong talking to the server, as one error type the pages show (components/ErrorNotice).
 * The API answers errors as `{error}` or, for invalid input, `{error, entry: {field: [messages]}}`
 * (rulings R3); a request that never got an answer is a network error (status 0).
 */

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  /** HTTP status; 0 when the server could not be reached */
  readonly status: number;
  /** per-field messages of a 422 */
  readonly entry: FieldErrors | null;
  /** seconds to wait, from a 429's Retry-After */
  readonly retryAfter: number | null;

  constructor(message: string, status: number, entry: FieldErrors | null = null, retryAfter: number | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.entry = entry;
    this.retryAfter = retryAfter;
  }

  get isNetwork(): boolean {
    return this.status === 0;
  }

  /** "name can't be blank", one line per field message. */
  get fieldMessages(): string[] {
    if (!this.entry) return [];
    return Object.entries(this.entry).flatMap(([field, messages]) => messages.map((m) => `${field} ${m}`));
  }
}

/** The error an answer carries, from its JSON body when it has one. */
export function errorFromBody(status: number, body: unknown, retryAfter: string | null = null): ApiError {
  const object = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const message = typeof object.error === 'string' ? object.error : `HTTP ${status}`;
  const entry = typeof object.entry === 'object' && object.entry !== null ? (object.entry as FieldErrors) : null;
  const seconds = retryAfter === null ? NaN : Number(retryAfter);
  return new ApiError(message, status, entry, Number.isFinite(seconds) ? seconds : null);
}

export function networkError(cause: unknown): ApiError {
  return new ApiError(cause instanceof Error ? cause.message : String(cause), 0);
}

/** Any thrown value as an ApiError (a bug elsewhere shows as what it says). */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(error instanceof Error ? error.message : String(error), -1);
}
