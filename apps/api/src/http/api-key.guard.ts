import { BadRequestException, CanActivate, ExecutionContext, ForbiddenException, Inject, Injectable, SetMetadata, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { CORE_SETTINGS, FeedbackTokenError, verifyFeedbackToken, type CoreSettings } from '@forensics/core';
import { APP_CONFIG, type AppConfig } from '@forensics/infra';
import { permissionsOf, REQUIRED_PERMISSIONS, type AuthenticatedRequest, type Permission, type Principal } from './auth';

export { actorOf, type AuthenticatedRequest } from './auth';

export const PUBLIC_ROUTE = 'forensics:public';
/** Marks a route that needs no API key (health, the widget script). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

export const FEEDBACK_TOKEN_ROUTE = 'forensics:feedback-token';
/**
 * Marks the one route that also accepts a signed feedback token instead of an API key
 * (POST /v1/feedback). Such a route answers cross-origin browsers (CORS, no credentials).
 */
export const AllowFeedbackToken = () => SetMetadata(FEEDBACK_TOKEN_ROUTE, true);

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** CORS for token routes: any origin, no cookies (tokens travel in a header or the body). */
export function setTokenRouteCors(res: Response): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Authorization, Idempotency-Key');
  res.setHeader('Access-Control-Max-Age', '600');
}

/**
 * Every endpoint but the public ones needs an API key: `X-API-Key: <key>` or
 * `Authorization: Bearer <key>`. Routes marked `@AllowFeedbackToken()` (POST /v1/feedback) accept
 * instead a feedback token, as `Authorization: FeedbackToken <token>` or a `feedbackToken` body
 * field; anywhere else a feedback token is refused. A token request must not also carry a key.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CORE_SETTINGS) private readonly settings: CoreSettings,
  ) {}

  canActivate(ctx: ExecutionContext): boolean {
    const targets = [ctx.getHandler(), ctx.getClass()];
    const req = ctx.switchToHttp().getRequest<AuthenticatedRequest>();
    const tokenRoute = !!this.reflector.getAllAndOverride<boolean>(FEEDBACK_TOKEN_ROUTE, targets);
    // Before any refusal, so a cross-origin browser can read the error message.
    if (tokenRoute) setTokenRouteCors(ctx.switchToHttp().getResponse<Response>());
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;

    const authorization = req.header('authorization');
    const scheme = authorization ? /^FeedbackToken(?:\s+(.*))?$/i.exec(authorization.trim()) : null;
    const headerToken = scheme ? (scheme[1] ?? '').trim() : undefined;
    const body = req.body as Record<string, unknown> | undefined;
    const bodyToken = tokenRoute && body && typeof body === 'object' && !Array.isArray(body) && 'feedbackToken' in body ? body.feedbackToken : undefined;
    const apiKey = req.header('x-api-key') ?? (headerToken === undefined ? authorization?.replace(/^Bearer\s+/i, '') : undefined);

    if (headerToken !== undefined || bodyToken !== undefined) {
      if (!tokenRoute) throw new UnauthorizedException('feedback tokens are accepted only by POST /v1/feedback; this endpoint needs an API key');
      if (apiKey) throw new BadRequestException('send either an API key or a feedback token, not both');
      if (headerToken !== undefined && bodyToken !== undefined && headerToken !== bodyToken) throw new BadRequestException('two different feedback tokens (header and body)');
      const token = headerToken ?? bodyToken;
      if (typeof token !== 'string' || !token) throw new UnauthorizedException('feedback token is malformed');
      try {
        const { answerId } = verifyFeedbackToken(token, this.settings.feedbackTokens.secret);
        req.feedbackToken = { answerId };
        req.principal = { via: 'feedback-token', name: `feedback-token:${answerId.slice(0, 8)}`, permissions: new Set<Permission>(['feedback']) };
        return true;
      } catch (e) {
        if (e instanceof FeedbackTokenError) throw new UnauthorizedException(e.message);
        throw e;
      }
    }

    if (!apiKey) throw new UnauthorizedException(tokenRoute ? 'missing credentials: send an API key (X-API-Key or Authorization: Bearer <key>) or a feedback token (Authorization: FeedbackToken <token>)' : 'missing API key: send X-API-Key or Authorization: Bearer <key>');
    if (!this.config.apiKeys.some((k) => safeEqual(k, apiKey))) throw new UnauthorizedException('invalid API key');
    req.principal = bootstrapPrincipal(apiKey);
    this.authorize(req.principal, targets);
    return true;
  }

  /** 403 unless the principal holds one of the permissions the route names (`manage` if none). */
  private authorize(principal: Principal, targets: Parameters<Reflector['getAllAndOverride']>[1]): void {
    const needed = this.reflector.getAllAndOverride<Permission[] | undefined>(REQUIRED_PERMISSIONS, targets) ?? ['manage'];
    if (!needed.some((p) => principal.permissions.has(p))) {
      throw new ForbiddenException(`this endpoint needs the ${needed.join(' or ')} permission, which ${principal.name} does not have`);
    }
  }
}

/** A key from `API_KEYS`: a bootstrap admin. Its id is a hash prefix, never the key. */
function bootstrapPrincipal(apiKey: string): Principal {
  const keyId = `env-${createHash('sha256').update(apiKey).digest('hex').slice(0, 8)}`;
  return { via: 'bootstrap-key', name: 'bootstrap-admin', role: 'admin', keyId, permissions: permissionsOf('admin') };
}
