import { CanActivate, ExecutionContext, ForbiddenException, Inject, Injectable, SetMetadata, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { REQUIRED_PERMISSIONS, type AuthenticatedRequest, type Permission, type Principal } from './auth';
import { Authenticator } from './authenticator';

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

/** CORS for token routes: any origin, no cookies (tokens travel in a header or the body). */
export function setTokenRouteCors(res: { setHeader(name: string, value: string): unknown }): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Authorization, Idempotency-Key');
  res.setHeader('Access-Control-Max-Age', '600');
}

/** The 401 of a request without credentials. */
export function missingCredentials(tokenRoute: boolean): UnauthorizedException {
  return new UnauthorizedException(tokenRoute
    ? 'missing credentials: send an API key (X-API-Key or Authorization: Bearer <key>) or a feedback token (Authorization: FeedbackToken <token>)'
    : 'missing API key: send X-API-Key or Authorization: Bearer <key> (or log in to the console)');
}

/** 403 unless the principal holds one of the permissions the route names. */
export function assertPermitted(principal: Principal, needed: readonly Permission[]): void {
  if (!needed.some((p) => principal.permissions.has(p))) {
    throw new ForbiddenException(`this endpoint needs the ${needed.join(' or ')} permission, which ${principal.name} does not have`);
  }
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
    @Inject(Authenticator) private readonly authenticator: Authenticator,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    const req = ctx.switchToHttp().getRequest<AuthenticatedRequest>();
    const tokenRoute = !!this.reflector.getAllAndOverride<boolean>(FEEDBACK_TOKEN_ROUTE, targets);
    // Before any refusal, so a cross-origin browser can read the error message.
    if (tokenRoute) setTokenRouteCors(ctx.switchToHttp().getResponse<Response>());
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;

    const authenticated = await this.authenticator.authenticate(req, { tokenRoute });
    if (!authenticated) throw missingCredentials(tokenRoute);
    req.principal = authenticated.principal;
    if (authenticated.session) req.consoleSession = authenticated.session;
    if (authenticated.feedbackToken) {
      req.feedbackToken = authenticated.feedbackToken;
      return true; // only token routes get here, and they need nothing more
    }
    this.authorize(req.principal, targets);
    return true;
  }

  /** 403 unless the principal holds one of the permissions the route names (`manage` if none). */
  private authorize(principal: Principal, targets: Parameters<Reflector['getAllAndOverride']>[1]): void {
    assertPermitted(principal, this.reflector.getAllAndOverride<Permission[] | undefined>(REQUIRED_PERMISSIONS, targets) ?? ['manage']);
  }
}
