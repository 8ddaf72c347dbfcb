/**
 * Errors the domain raises. They carry no HTTP: http/errors.ts maps each class to a status, and
 * every class here has exactly one status there.
 */

/** `entry` maps a field name to its messages, as in `{"name":["can't be blank"]}`. */
export type Entry = Record<string, string[]>;

export class ValidationError extends Error {
  readonly entry: Entry;
  constructor(entry: Entry, message = 'Unprocessable entity') {
    super(message);
    this.name = 'ValidationError';
    this.entry = entry;
  }
  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

/** The thing named does not exist: `${what} not found`, e.g. "App not found". */
export class NotFoundError extends Error {
  /** `message` replaces the usual wording where a client expects another (version_exist: "Not found release"). */
  constructor(what: string, message = `${what} not found`) {
    super(message);
    this.name = 'NotFoundError';
  }
}

/** Missing, unknown or expired credentials. */
export class UnauthorizedError extends Error {
  constructor(message = 'Unauthorized user token') {
    super(message);
    this.name = 'UnauthorizedError';
  }
}

/** Known caller, not allowed. */
export class ForbiddenError extends Error {
  constructor(message = 'You are not allowed to perform this action') {
    super(message);
    this.name = 'ForbiddenError';
  }
}

/** The request is valid but clashes with the current state (a duplicate, an archived app). */
export class ConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}
