import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * The console's and the API's Content-Security-Policy: no inline script, nothing from elsewhere,
 * never framed. `style-src` also allows inline styles (style attributes for bars and widths in the
 * console); scripts stay `'self'` only, so injected markup can never run.
 */
export const STRICT_CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
};

/**
 * Paths with needs of their own, excepted from the strict CSP explicitly (all other helmet headers
 * still apply):
 * - `/docs` — Swagger UI (its bundle and inline styles);
 * - `/admin/queues` — the queue dashboard (bull-board's own page);
 * - `/widget.js`, `/widget/example` — the feedback button is loaded by other sites: the script sets
 *   `Cross-Origin-Resource-Policy: cross-origin` and the example page its own hash-based CSP (see
 *   WidgetController), which override these defaults.
 */
export const CSP_EXCEPTIONS: readonly RegExp[] = [/^\/docs(\/|$)/, /^\/admin\/queues(\/|$)/];

/** helmet for every response: strict CSP, nosniff, Referrer-Policy no-referrer, frame denial, HSTS, COOP/CORP same-origin. */
export function securityHeaders(): RequestHandler {
  const common = { referrerPolicy: { policy: 'no-referrer' as const }, xFrameOptions: { action: 'deny' as const } };
  const strict = helmet({ ...common, contentSecurityPolicy: { useDefaults: false, directives: STRICT_CSP_DIRECTIVES } });
  const relaxed = helmet({ ...common, contentSecurityPolicy: false });
  return (req: Request, res: Response, next: NextFunction) => (CSP_EXCEPTIONS.some((r) => r.test(req.path)) ? relaxed : strict)(req, res, next);
}
