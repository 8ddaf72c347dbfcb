/**
 * Every error leaves as JSON `{"error": "...", "entry"?: {...}}` (R3), with one status per cause:
 * 400 malformed body, 401/403 credentials and rights, 404 unknown thing or path, 409 conflict with
 * the current state, 413 too large, 415 unsupported body type, 422 invalid input, 429 too many
 * attempts (with Retry-After), 503 busy,
 * 507 disk full, 500 for our own bugs (logged; the body says nothing of internals).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from '../domain/errors.ts';
import { ParseError } from '../parsers/types.ts';
import { entryOf } from './validation.ts';

/** A request the server cannot make sense of (a malformed multipart body): 400 with this message. */
export class BadRequestError extends Error {
  readonly statusCode = 400;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BadRequestError';
  }
}

/** Too many attempts from one client (rate limits): 429 with Retry-After. */
export class TooManyRequestsError extends Error {
  readonly statusCode = 429;
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.name = 'TooManyRequestsError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface ErrorBody {
  error: string;
  entry?: Record<string, string[]>;
}

interface Mapped {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
}

function map(error: FastifyError): Mapped {
  if (error.validation) {
    return { status: 422, body: { error: 'Unprocessable entity', entry: entryOf(error.validation as never, error.validationContext ?? 'request') } };
  }
  if (error instanceof ValidationError) return { status: 422, body: { error: error.message, entry: error.entry } };
  if (error instanceof ParseError) return { status: 422, body: { error: error.message, entry: { file: [error.message] } } };
  if (error instanceof NotFoundError) return { status: 404, body: { error: error.message } };
  if (error instanceof UnauthorizedError) return { status: 401, body: { error: error.message } };
  if (error instanceof ForbiddenError) return { status: 403, body: { error: error.message } };
  if (error instanceof ConflictError) return { status: 409, body: { error: error.message } };
  if (error instanceof TooManyRequestsError) return { status: 429, body: { error: error.message }, headers: { 'retry-after': String(error.retryAfterSeconds) } };

  const code = (error as { code?: string }).code;
  // SQLite's extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_READONLY_DBMOVED...) mean what their primary code means
  switch (code?.startsWith('SQLITE_') ? code.replace(/^(SQLITE_[A-Z]+)_[A-Z_]+$/, '$1') : code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, body: { error: 'Malformed JSON: the body is empty' } };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, body: { error: 'Malformed JSON' } };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, body: { error: 'Request body is too large' } };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, body: { error: 'Unsupported Content-Type: send JSON, a form or multipart' } };
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return { status: 413, body: { error: `The upload is larger than this server accepts (${error.message})` } };
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return { status: 415, body: { error: 'Send the build as multipart/form-data' } };
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return { status: 503, body: { error: 'The database is busy; try again' }, headers: { 'retry-after': '1' } };
    case 'SQLITE_FULL':
    case 'ENOSPC':
      return { status: 507, body: { error: 'The server is out of disk space' } };
    case 'EROFS':
    case 'SQLITE_READONLY':
      return { status: 507, body: { error: "The server cannot write to its data folder (read-only); ask its operator" } };
  }
  if (code === 'HANGAR_MALFORMED_UNICODE') return { status: 400, body: { error: error.message } };
  // JSON.parse failures surface as SyntaxError with status 400
  if (error instanceof SyntaxError && error.statusCode === 400) return { status: 400, body: { error: 'Malformed JSON' } };
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status, body: { error: error.message } };
  return { status: 500, body: { error: 'Internal server error' } };
}

/**
 * Errors the router raises before any route or hook runs (Fastify's `frameworkErrors` option):
 * answered in the same JSON form, with the headers onSend would have added.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const [status, message] =
    error.code === 'FST_ERR_BAD_URL' ? [400, 'Malformed URL']
    : error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? [414, 'URL too long']
    : [500, 'Internal server error'];
  reply
    .code(status)
    .header('content-type', 'application/json; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(JSON.stringify({ error: message }));
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body, headers } = map(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ status, error: body.error }, 'request refused');
    if (headers) reply.headers(headers);
    return reply.code(status).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const api = request.url === '/api' || request.url.startsWith('/api/') || request.url.startsWith('/api?');
    return reply.code(404).send({ error: api ? 'API not found' : 'Not found' });
  });
}
