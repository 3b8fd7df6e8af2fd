import 'reflect-metadata';
import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createJsonLogger, InfrastructureModule, JsonLoggingModule, METRICS, type AppConfig, type ForensicsMetrics } from '@forensics/infra';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { ApiModule } from './api.module';
import { httpMetricsMiddleware } from './metrics/http-metrics.middleware';
import { securityHeaders } from './http/security-headers';
import { consoleStatic } from './console/serve-console';
import { QueueRegistry } from '@forensics/infra';
import { Authenticator } from './http/authenticator';
import { QUEUE_DASHBOARD_PATH, queueDashboard } from './admin/queue-dashboard';

/** Ingestion carries corpora; everything else is small. */
const INGEST_BODY_LIMIT = '20mb';

export interface ApiAppOptions {
  logger?: boolean;
  /** The process's infrastructure module; default: a new one for `config`. */
  infrastructure?: DynamicModule;
  /** More modules in the same process (the worker, for `npm start` and in-process tests). */
  with?: DynamicModule[];
  /** JSON logs (LOG_FORMAT=json) go here instead of stdout (tests). */
  logDestination?: DestinationStream;
}

/** Builds the Nest HTTP app (used by main.ts, the CLI's serve and the tests, which listen on port 0). */
export async function createApiApp(config: AppConfig, opts: ApiAppOptions = {}): Promise<NestExpressApplication> {
  const infrastructure = opts.infrastructure ?? InfrastructureModule.forRoot(config);
  const api = ApiModule.forRoot(infrastructure);
  // LOG_FORMAT=json: pino through nestjs-pino (request id on every line of a request), else Nest's console logger.
  const json = opts.logger !== false && config.logFormat === 'json';
  const logging = json ? [JsonLoggingModule.forRoot(createJsonLogger({ name: 'api', destination: opts.logDestination }))] : [];
  const root: DynamicModule = { ...api, imports: [...(api.imports ?? []), ...(opts.with ?? []), ...logging] };
  const app = await NestFactory.create<NestExpressApplication>(root, {
    bodyParser: false,
    logger: opts.logger === false ? false : ['error', 'warn', 'log'],
    bufferLogs: json,
    // Throw start-up errors to the caller (which reports them) instead of exiting the process.
    abortOnError: false,
  });
  if (json) app.useLogger(app.get(PinoNestLogger));
  app.use(httpMetricsMiddleware(app.get<ForensicsMetrics>(METRICS)));
  // Security headers (helmet): a strict CSP for the console and the API, explicit exceptions in security-headers.ts.
  app.use(securityHeaders());
  // The review console's static files (HTML, CSS, ES modules) at /console.
  app.use('/console', consoleStatic());
  // The queue dashboard (bull-board) for admins, over every queue registered in the container
  // (an infrastructure composed without the queue has no registry, and then no dashboard).
  const queueRegistry = (() => { try { return app.get(QueueRegistry, { strict: false }); } catch { return null; } })();
  if (queueRegistry) app.use(QUEUE_DASHBOARD_PATH, queueDashboard({ authenticator: app.get(Authenticator), queues: queueRegistry.all() }));
  // The console's login form (its session cookie is read by the Authenticator, from the header, only when no key is sent).
  const loginForm = express.urlencoded({ extended: false, limit: '4kb' });
  app.use((req: Request, res: Response, next: NextFunction) => (req.method === 'POST' && req.path === '/v1/session' ? loginForm(req, res, next) : next()));
  const ingestJson = express.json({ limit: INGEST_BODY_LIMIT });
  const jsonBody = express.json({ limit: config.bodyLimit });
  app.use((req: Request, res: Response, next: NextFunction) => (/^\/v1\/collections\/[^/]+\/documents/.test(req.path) ? ingestJson : jsonBody)(req, res, next));
  // body-parser errors → clear JSON (413 over the limit, 400 for malformed JSON).
  app.use((err: { type?: string; status?: number; message?: string; limit?: number }, _req: Request, res: Response, next: NextFunction) => {
    if (!err) return next();
    if (err.type === 'entity.too.large') return res.status(413).json({ statusCode: 413, error: 'Payload Too Large', message: `request body exceeds the limit of ${err.limit} bytes` });
    if (err.type === 'entity.parse.failed') return res.status(400).json({ statusCode: 400, error: 'Bad Request', message: `malformed JSON body: ${err.message}` });
    if (err.status && err.status < 500) return res.status(err.status).json({ statusCode: err.status, error: 'Bad Request', message: err.message });
    return next(err);
  });
  app.disable('x-powered-by');
  const doc = new DocumentBuilder()
    .setTitle('RAG forensics service')
    .setDescription('Feedback intake, RAGForensics traceback outcomes, reversible quarantine, corpus ingestion.')
    .setVersion('0.1.0')
    .addApiKey({ type: 'apiKey', name: 'X-API-Key', in: 'header' }, 'api-key')
    .build();
  SwaggerModule.setup('docs', app, SwaggerModule.createDocument(app, doc), { jsonDocumentUrl: 'docs/openapi.json' });
  return app;
}
