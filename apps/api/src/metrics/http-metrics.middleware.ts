import type { NextFunction, Request, Response } from 'express';
import type { ForensicsMetrics } from '@forensics/infra';

/**
 * Counts and times every HTTP request by method, route template (e.g. `/v1/feedback/:id`, never
 * the raw URL: bounded labels) and status code. Requests no route matched are labelled `unmatched`.
 */
export function httpMetricsMiddleware(metrics: ForensicsMetrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const routePath = (req.route as { path?: unknown } | undefined)?.path;
      const route = typeof routePath === 'string' ? `${req.baseUrl ?? ''}${routePath}` || '/' : 'unmatched';
      const labels = { method: req.method, route, status_code: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  };
}
