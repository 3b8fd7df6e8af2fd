import { timingSafeEqual } from 'node:crypto';

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export type MetricsAccess = { ok: true } | { ok: false; status: 401 | 503; message: string };

/**
 * Who may scrape /metrics (the API's and a separate worker's alike): with METRICS_TOKEN set,
 * `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise); in production without a token nobody
 * (503); outside production without a token everybody (local use).
 */
export function metricsAccess(opts: { metricsToken?: string; production: boolean }, authorization: string | undefined): MetricsAccess {
  const token = opts.metricsToken;
  if (!token) {
    return opts.production ? { ok: false, status: 503, message: 'metrics are disabled: set METRICS_TOKEN to serve /metrics in production' } : { ok: true };
  }
  const m = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? '');
  if (!m || !safeEqual(m[1].trim(), token)) return { ok: false, status: 401, message: 'metrics need Authorization: Bearer <METRICS_TOKEN>' };
  return { ok: true };
}
