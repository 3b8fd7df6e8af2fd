import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import pino, { type DestinationStream, type Logger as PinoInstance } from 'pino';
import type { Options as HttpLoggingOptions } from 'pino-http';
import { currentLogContext } from './log-context';

/**
 * Paths never written to a log: credentials in headers (API keys, bearer tokens, cookies) and
 * feedback tokens wherever a body or object carries them.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'res.headers["set-cookie"]',
  'headers.authorization', 'headers["x-api-key"]', 'headers.cookie',
  'feedbackToken', '*.feedbackToken', 'req.body.feedbackToken', 'body.feedbackToken',
  'apiKey', '*.apiKey', 'secret', '*.secret', 'token', '*.token', 'password', '*.password',
];

/** The process's JSON logger: one object per line, secrets redacted, the current work's fields mixed in. */
export function createJsonLogger(opts: { name: string; level?: string; destination?: DestinationStream }): PinoInstance {
  return pino({
    name: opts.name,
    level: opts.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    mixin: () => ({ ...currentLogContext() }),
    timestamp: pino.stdTimeFunctions.isoTime,
  }, opts.destination ?? pino.destination({ fd: 1, sync: false }));
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * pino-http's options for the API's request lines: the request id (a well-formed `X-Request-Id` or
 * a new UUID, echoed in the response header), only method, URL, id and status, never headers or
 * bodies; a 503 at warn, and no made-up error with a stack for a 5xx. Used by JsonLoggingModule (every Nest route) and by the intake's fast path, which logs
 * POST /v1/feedback the same way without going through Nest.
 */
export function jsonHttpLoggingOptions(logger: PinoInstance): HttpLoggingOptions {
  return {
    logger,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    serializers: {
      req: (req: { id?: unknown; method?: string; url?: string }) => ({ id: req.id, method: req.method, url: req.url?.split('?')[0] }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
    // A 503 is an answer the service chose (a dependency down, /health degraded, draining), and whoever
    // chose it logs why at warn: its request line is a warning too, not an error.
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) => (err || (res.statusCode >= 500 && res.statusCode !== 503) ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    // For a 5xx that no error came with, pino-http makes one up ("failed with status code 503") whose
    // stack is its own: it says nothing the status does not. Left out; a real error is kept.
    customErrorObject: (_req: IncomingMessage, res: ServerResponse, error: Error, val: Record<string, unknown>) => {
      if (error.message !== `failed with status code ${res.statusCode}`) return val;
      const { err: _madeUp, ...rest } = val;
      return rest;
    },
  };
}

/**
 * nestjs-pino over `logger`: every Nest `Logger` line goes to it as JSON; within an HTTP request
 * (API) each line carries the request id (`req.id`, from a well-formed `X-Request-Id` or a new
 * UUID, echoed in the response header). Only method, URL, id and status of requests are logged,
 * never headers or bodies.
 */
@Module({})
export class JsonLoggingModule {
  static forRoot(logger: PinoInstance): DynamicModule {
    return {
      module: JsonLoggingModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: jsonHttpLoggingOptions(logger),
        }),
      ],
      exports: [LoggerModule],
    };
  }
}
