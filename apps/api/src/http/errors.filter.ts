import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { AccessDeniedError, AuthenticationError, ConflictError, echoInput, NotFoundError, PermanentError, ValidationError } from '@forensics/core';
import { isTransientFailure } from '@forensics/infra';

/** Seconds a client is told to wait when a dependency is down (the reconciler's pace is similar). */
const OUTAGE_RETRY_AFTER_SEC = 5;

/** Domain errors → HTTP statuses with a JSON body `{statusCode, error, message, details?}`. */
@Catch()
export class ErrorsFilter implements ExceptionFilter {
  private readonly log = new Logger('http');

  catch(err: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const send = (statusCode: number, error: string, message: string, details?: string[]): void => {
      res.status(statusCode).json({ statusCode, error, message, ...(details && details.length > 1 ? { details } : {}) });
    };
    if (err instanceof ValidationError) return send(400, 'Bad Request', err.message, err.details);
    if (err instanceof AuthenticationError) return send(401, 'Unauthorized', err.message);
    if (err instanceof AccessDeniedError) return send(403, 'Forbidden', err.message);
    if (err instanceof NotFoundError) return send(404, 'Not Found', err.message);
    if (err instanceof ConflictError) { res.status(409).json({ ...(err.body ?? {}), statusCode: 409, error: 'Conflict', message: err.message }); return; }
    if (err instanceof PermanentError) return send(422, 'Unprocessable Entity', err.message);
    if (err instanceof HttpException) {
      const body = err.getResponse();
      const message = typeof body === 'string' ? body : String((body as { message?: unknown }).message ?? err.message);
      // Bounded: Nest's own messages can repeat the request ("Cannot GET /<a 5,000-character path>").
      return send(err.getStatus(), err.name.replace(/Exception$/, ''), message.length > 300 ? echoInput(message, 150) : message);
    }
    if (isTransientFailure(err)) {
      // A dependency is down (Postgres unreachable, disk full under the vector store, …): nothing of
      // this request was accepted, and retrying later is the right thing to do — say so.
      this.log.warn(`dependency unavailable: ${(err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 300)}`);
      res.setHeader('Retry-After', String(OUTAGE_RETRY_AFTER_SEC));
      return send(503, 'Service Unavailable', 'a dependency of the service is unavailable; nothing was stored, retry later');
    }
    this.log.error(err instanceof Error ? err.stack ?? err.message : String(err));
    return send(500, 'Internal Server Error', 'internal error');
  }
}
