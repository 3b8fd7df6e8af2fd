// JSON client for the review API. With the session cookie, every state-changing request carries
// the session's CSRF token in X-CSRF-Token.

let csrfToken = null;
export function setCsrf(token) { csrfToken = token ?? null; }

export class ApiError extends Error {
  constructor(status, body) {
    const msg = body && typeof body === 'object' ? (Array.isArray(body.message) ? body.message.join('; ') : body.message) : null;
    super(msg || `HTTP ${status}`);
    this.status = status;
    this.body = body ?? {};
  }
}

const listeners = new Set();
/** Called with every 401 (the session ended or expired). */
export function onUnauthorized(fn) { listeners.add(fn); }

export async function api(method, path, body, opts = {}) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(path, {
    method, headers, credentials: 'same-origin', keepalive: !!opts.keepalive,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = { message: text.slice(0, 300) }; }
  if (!res.ok) {
    if (res.status === 401 && !opts.quiet401) for (const fn of listeners) fn();
    throw new ApiError(res.status, data);
  }
  return data;
}

/** Query string of the non-empty values. */
export function qs(params) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}

/** A client-generated id (bulk requestId). */
export function requestId() {
  const a = new Uint8Array(12);
  crypto.getRandomValues(a);
  return `c-${[...a].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}
