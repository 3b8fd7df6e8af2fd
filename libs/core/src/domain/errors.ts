/** A failure that retrying cannot fix (bad input, unknown entity, misconfiguration). */
export class PermanentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentError';
  }
}

/** Input that fails validation; the API maps it to 400 with this message. */
export class ValidationError extends Error {
  constructor(message: string, readonly details: string[] = []) {
    super(message);
    this.name = 'ValidationError';
  }
}

export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

export class ConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}
