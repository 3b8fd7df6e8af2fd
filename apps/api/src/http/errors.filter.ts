import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { httpErrorOf } from './http-errors';

/** Domain errors → HTTP statuses with a JSON body `{statusCode, error, message, details?}` (the mapping: http-errors.ts). */
@Catch()
export class ErrorsFilter implements ExceptionFilter {
  private readonly log = new Logger('http');

  catch(err: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const { status, body, headers } = httpErrorOf(err, this.log);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.status(status).json(body);
  }
}
