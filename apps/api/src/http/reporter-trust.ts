import { createHash } from 'node:crypto';
import type { NewFeedback } from '@forensics/core';
import type { Principal } from './auth';

type TrustLevel = NonNullable<NewFeedback['trust']>;

/**
 * Reporter trust from the credentials of a POST /v1/feedback (issue 13, item 1), never from the body:
 * - a feedback token (a browser) is `anonymous`; its reporter is counted by client address
 *   (`req.ip`, hashed: the address is personal data and only needs to be told apart);
 * - an API key or console session is `identified`, or `reviewer` when it may decide quarantines;
 *   its reporter is the key (and the `reporter` the key's holder names, e.g. its end user).
 */
export function addressSource(req: { ip?: string; socket: { remoteAddress?: string } }): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  return `addr:${createHash('sha256').update(ip).digest('hex').slice(0, 16)}`;
}

/** The key (or console session, by the key it opened with) behind a request: `key:<id>`. */
export function keySource(req: { principal?: Principal }): string {
  const p = req.principal;
  return `key:${p?.keyId ?? p?.name ?? 'unknown'}`;
}

/**
 * Who is calling, as the reporter budgets count callers (rate-limit.ts): a feedback token's client
 * address (`addr:<hash>`), else the key (`key:<id>`). Never a name from the body: that is the caller's to type.
 */
export function callerSource(req: { principal?: Principal; feedbackToken?: unknown; ip?: string; socket: { remoteAddress?: string } }): string {
  return req.feedbackToken ? addressSource(req) : keySource(req);
}

export function keyReporterTrust(req: { principal?: Principal }, namedReporter: string | null): { trust: TrustLevel; reporterSource: string } {
  const p = req.principal;
  const trust: TrustLevel = p?.permissions.has('decide') ? 'reviewer' : 'identified';
  const key = keySource(req);
  return { trust, reporterSource: namedReporter ? `${key}/${namedReporter.slice(0, 200)}` : key };
}
