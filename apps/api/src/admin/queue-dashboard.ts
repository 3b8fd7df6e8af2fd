import { HttpException } from '@nestjs/common';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { AuthenticatedRequest } from '../http/auth';
import type { Authenticator } from '../http/authenticator';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * The dashboard's own Content-Security-Policy, set explicitly on its route (the global strict CSP
 * excepts /admin/queues, see security-headers.ts): bull-board's page loads its scripts from its own
 * static path (`'self'`; its only inline <script> is a JSON data block, which is never executed),
 * resolves them against its `<base href="/admin/queues/">` (so `base-uri 'self'`, not `'none'` as
 * elsewhere), styles itself with inline styles, and calls its JSON API on the same origin. Its link to Google
 * Fonts is blocked on purpose (an admin page makes no third-party requests; system fonts are used).
 */
export const QUEUE_DASHBOARD_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self'",
  "connect-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'self'", "form-action 'self'",
].join('; ');

function send(res: Response, status: number, message: string): void {
  res.status(status).json({ statusCode: status, error: status === 401 ? 'Unauthorized' : 'Forbidden', message });
}

/**
 * Admins only, through the same Authenticator as the API and the console: an API key
 * (`X-API-Key` / `Authorization: Bearer`) or the console's session cookie (with its CSRF rule on
 * state-changing requests). 401 without credentials, 403 without the `manage` permission.
 */
export function requireManage(authenticator: Authenticator): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    authenticator.authenticate(req).then((auth) => {
      if (!auth) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="queue dashboard"');
        return send(res, 401, 'the queue dashboard needs an admin: log in to the console (/console) or send an API key (X-API-Key or Authorization: Bearer <key>)');
      }
      if (!auth.principal.permissions.has('manage')) return send(res, 403, `the queue dashboard needs the manage permission, which ${auth.principal.name} does not have`);
      (req as AuthenticatedRequest).principal = auth.principal;
      next();
    }, (e: unknown) => {
      if (e instanceof HttpException) return send(res, e.getStatus(), e.message);
      next(e);
    });
  };
}

/**
 * bull-board (issue 14, item 2) for every queue of the process — `queues` comes from the
 * QueueRegistry, which discovers them in the Nest container (traceback, maintenance, webhooks, …).
 * Mount it at {@link QUEUE_DASHBOARD_PATH}: its page at the root, its JSON API under `/api`
 * (e.g. `/admin/queues/api/queues`).
 */
export function queueDashboard(opts: { authenticator: Authenticator; queues: readonly Queue[]; basePath?: string }): Router {
  const basePath = opts.basePath ?? QUEUE_DASHBOARD_PATH;
  const serverAdapter = new ExpressAdapter().setBasePath(basePath);
  createBullBoard({
    queues: opts.queues.map((q) => new BullMQAdapter(q)),
    // @bull-board/express 9.10.1 declares its types against its own nested copy of @bull-board/api
    // (9.10.1, vs 9.10.2 here); the adapter uses none of that package at run time, only its shape.
    serverAdapter: serverAdapter as unknown as Parameters<typeof createBullBoard>[0]['serverAdapter'],
    options: { uiConfig: { boardTitle: 'Forensics queues' } },
  });
  const router = Router();
  router.use((_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Content-Security-Policy', QUEUE_DASHBOARD_CSP);
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(requireManage(opts.authenticator));
  router.use(serverAdapter.getRouter() as RequestHandler);
  return router;
}
