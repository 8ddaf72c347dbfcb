/** A mistake in how the command was called: printed with a pointer to `hangar help`, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
