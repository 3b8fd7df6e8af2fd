import 'reflect-metadata';
import { Logger, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createJsonLogger, InfrastructureModule, JsonLoggingModule, jsonHttpLoggingOptions, METRICS, type AppConfig, type ForensicsMetrics } from '@forensics/infra';
import bytes from 'bytes';
import { storage, Store } from 'nestjs-pino/storage';
import { pinoHttp } from 'pino-http';
import type { Logger as PinoInstance } from 'pino';
import { installFastIntake } from './http/fast-intake';
import { FeedbackIntake } from './http/feedback-intake';
import { RateLimits } from './http/rate-limit';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { ApiModule } from './api.module';
import { httpMetricsMiddleware } from './metrics/http-metrics.middleware';
import { securityHeaders } from './http/security-headers';
import { bodyErrorOf } from './http/http-errors';
import { jsonDepthVerifier } from './http/json-depth';
import { consoleStatic } from './console/serve-console';
import { QueueRegistry } from '@forensics/infra';
import { Authenticator } from './http/authenticator';
import { HttpDrain } from './http/http-drain';

export { HttpDrain, type DrainResult } from './http/http-drain';
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
  const jsonLogger = json ? createJsonLogger({ name: 'api', destination: opts.logDestination }) : null;
  const logging = jsonLogger ? [JsonLoggingModule.forRoot(jsonLogger)] : [];
  const root: DynamicModule = { ...api, imports: [...(api.imports ?? []), ...(opts.with ?? []), ...logging] };
  const app = await NestFactory.create<NestExpressApplication>(root, {
    bodyParser: false,
    logger: opts.logger === false ? false : ['error', 'warn', 'log'],
    bufferLogs: json,
    // Throw start-up errors to the caller (which reports them) instead of exiting the process.
    abortOnError: false,
  });
  if (json) app.useLogger(app.get(PinoNestLogger));
  // TRUST_PROXY: behind N reverse proxies `req.ip` is the client the outermost one saw (it appended it to
  // X-Forwarded-For), `req.protocol` / `req.host` what they forwarded: the rate limits, the login throttle
  // and the same-origin check read these. Off, the headers are ignored (a client could write them).
  if (config.trustProxyHops > 0) app.set('trust proxy', config.trustProxyHops);
  app.use(httpMetricsMiddleware(app.get<ForensicsMetrics>(METRICS)));
  // Security headers (helmet): a strict CSP for the console and the API, explicit exceptions in security-headers.ts.
  const headers = securityHeaders();
  app.use(headers);
  // The review console's static files (HTML, CSS, ES modules) at /console.
  app.use('/console', consoleStatic());
  // The queue dashboard (bull-board) for admins, over every queue registered in the container
  // (an infrastructure composed without the queue has no registry, and then no dashboard).
  const queueRegistry = (() => { try { return app.get(QueueRegistry, { strict: false }); } catch { return null; } })();
  if (queueRegistry) app.use(QUEUE_DASHBOARD_PATH, queueDashboard({ authenticator: app.get(Authenticator), queues: queueRegistry.all() }));
  // The console's login form (its session cookie is read by the Authenticator, from the header, only when no key is sent).
  const loginForm = express.urlencoded({ extended: false, limit: '4kb' });
  app.use((req: Request, res: Response, next: NextFunction) => (req.method === 'POST' && req.path === '/v1/session' ? loginForm(req, res, next) : next()));
  // Every JSON body's nesting depth is checked on its raw bytes before body-parser parses it (400 past JSON_MAX_DEPTH).
  const verify = jsonDepthVerifier(config.jsonMaxDepth);
  const ingestJson = express.json({ limit: INGEST_BODY_LIMIT, verify });
  const jsonBody = express.json({ limit: config.bodyLimit, verify });
  app.use((req: Request, res: Response, next: NextFunction) => (/^\/v1\/collections\/[^/]+\/documents/.test(req.path) ? ingestJson : jsonBody)(req, res, next));
  // body-parser errors → clear JSON (413 over the limit, 400 for malformed or too deeply nested JSON).
  app.use((err: { type?: string; status?: number; message?: string; limit?: number }, _req: Request, res: Response, next: NextFunction) => {
    if (!err) return next();
    const answer = bodyErrorOf(err);
    if (!answer) return next(err);
    return res.status(answer.status).json(answer.body);
  });
  app.disable('x-powered-by');
  const doc = new DocumentBuilder()
    .setTitle('RAG forensics service')
    .setDescription('Feedback intake, RAGForensics traceback outcomes, reversible quarantine, corpus ingestion.')
    .setVersion('0.1.0')
    .addApiKey({ type: 'apiKey', name: 'X-API-Key', in: 'header' }, 'api-key')
    .build();
  SwaggerModule.setup('docs', app, SwaggerModule.createDocument(app, doc), { jsonDocumentUrl: 'docs/openapi.json' });
  if (config.intakeFastPath) {
    // POST /v1/feedback by a lean handler in front of express (fast-intake.ts: same steps, ~0.3 ms less CPU per request).
    const httpLogger = jsonLogger ? pinoHttp(jsonHttpLoggingOptions(jsonLogger)) : null;
    installFastIntake(app.getHttpServer(), {
      authenticator: app.get(Authenticator), rateLimits: app.get(RateLimits), intake: app.get(FeedbackIntake), metrics: app.get<ForensicsMetrics>(METRICS),
      bodyLimit: bytes.parse(config.bodyLimit) ?? 0, jsonMaxDepth: config.jsonMaxDepth, securityHeaders: headers, trustsProxy: () => (app.getHttpAdapter().getInstance() as express.Express).enabled('trust proxy'), log: new Logger('intake'),
      ...(httpLogger ? { requestLogging: { log: (req, res) => httpLogger(req, res), bind: (req, run) => storage.run(new Store((req as { log: PinoInstance }).log), run) } } : {}),
    });
  }
  // Last: it follows every connection and request (fast path included) for the drain at shutdown.
  app.get(HttpDrain).attach(app.getHttpServer());
  return app;
}
