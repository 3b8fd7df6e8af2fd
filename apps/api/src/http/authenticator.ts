import { BadRequestException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { CORE_SETTINGS, FeedbackTokenError, verifyFeedbackToken, type CoreSettings } from '@forensics/core';
import { APP_CONFIG, type AppConfig } from '@forensics/infra';
import { permissionsOf, type Permission, type Principal } from './auth';

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A key from `API_KEYS`: a bootstrap admin. Its id is a hash prefix, never the key. */
export function bootstrapPrincipal(apiKey: string): Principal {
  const keyId = `env-${createHash('sha256').update(apiKey).digest('hex').slice(0, 8)}`;
  return { via: 'bootstrap-key', name: 'bootstrap-admin', role: 'admin', keyId, permissions: permissionsOf('admin') };
}

export interface AuthenticateOptions {
  /** The route accepts a feedback token instead of a key (POST /v1/feedback only). */
  tokenRoute?: boolean;
}

export interface Authenticated {
  principal: Principal;
  /** Set when a feedback token authenticated the request. */
  feedbackToken?: { answerId: string };
}

/**
 * Turns a request's credentials into a Principal. One place for every way in — the API guard, the
 * console and the queue dashboard all call it:
 * - `X-API-Key: <key>` or `Authorization: Bearer <key>`;
 * - `Authorization: FeedbackToken <token>` or a `feedbackToken` body field, on token routes only.
 * Returns null when the request carries no credentials; throws 401/400 on bad ones.
 */
@Injectable()
export class Authenticator {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CORE_SETTINGS) private readonly settings: CoreSettings,
  ) {}

  async authenticate(req: Request, opts: AuthenticateOptions = {}): Promise<Authenticated | null> {
    const authorization = req.header('authorization');
    const scheme = authorization ? /^FeedbackToken(?:\s+(.*))?$/i.exec(authorization.trim()) : null;
    const headerToken = scheme ? (scheme[1] ?? '').trim() : undefined;
    const body = req.body as Record<string, unknown> | undefined;
    const bodyToken = opts.tokenRoute && body && typeof body === 'object' && !Array.isArray(body) && 'feedbackToken' in body ? body.feedbackToken : undefined;
    const apiKey = req.header('x-api-key') ?? (headerToken === undefined ? authorization?.replace(/^Bearer\s+/i, '') : undefined);

    if (headerToken !== undefined || bodyToken !== undefined) {
      if (!opts.tokenRoute) throw new UnauthorizedException('feedback tokens are accepted only by POST /v1/feedback; this endpoint needs an API key');
      if (apiKey) throw new BadRequestException('send either an API key or a feedback token, not both');
      if (headerToken !== undefined && bodyToken !== undefined && headerToken !== bodyToken) throw new BadRequestException('two different feedback tokens (header and body)');
      const token = headerToken ?? bodyToken;
      if (typeof token !== 'string' || !token) throw new UnauthorizedException('feedback token is malformed');
      try {
        const { answerId } = verifyFeedbackToken(token, this.settings.feedbackTokens.secret);
        return {
          principal: { via: 'feedback-token', name: `feedback-token:${answerId.slice(0, 8)}`, permissions: new Set<Permission>(['feedback']) },
          feedbackToken: { answerId },
        };
      } catch (e) {
        if (e instanceof FeedbackTokenError) throw new UnauthorizedException(e.message);
        throw e;
      }
    }

    if (!apiKey) return null;
    return { principal: await this.principalForKey(apiKey) };
  }

  /** The principal an API key stands for; 401 when the key is unknown. */
  async principalForKey(apiKey: string): Promise<Principal> {
    if (this.config.apiKeys.some((k) => safeEqual(k, apiKey))) return bootstrapPrincipal(apiKey);
    throw new UnauthorizedException('invalid API key');
  }
}
