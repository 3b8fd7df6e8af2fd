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
  /** `body`: extra members of the 409 response (e.g. the `claim` that blocks a review decision). */
  constructor(message: string, readonly body?: Record<string, unknown>) {
    super(message);
    this.name = 'ConflictError';
  }
}

/** Longest piece of user input an error message repeats (issue 10: input is never echoed at unbounded length). */
export const ECHO_MAX_CHARS = 80;

/**
 * `value` as an error message may repeat it: at most {@link ECHO_MAX_CHARS} characters (longer
 * values cut, with an ellipsis and the full length), control characters shown as `\uXXXX`.
 */
export function echoInput(value: unknown, max = ECHO_MAX_CHARS): string {
  const s = String(value);
  const cut = s.length > max ? `${s.slice(0, max)}… (${s.length} characters)` : s;
  // eslint-disable-next-line no-control-regex
  return cut.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
