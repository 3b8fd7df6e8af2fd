import { BadRequestException, Body, Controller, Delete, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  AuthenticationError, CreateSessionRequest, CreateSessionUseCase, DestroySessionUseCase, IDENTITY_SETTINGS, parseRequest, type IdentitySettings,
} from '@forensics/core';
import { APP_CONFIG, type AppConfig } from '@forensics/infra';
import { actorOf, Allow, principalOf, type AuthenticatedRequest } from '../http/auth';
import { Public } from '../http/api-key.guard';
import { assertSameOrigin, Authenticator, cookieOf, SESSION_COOKIE } from '../http/authenticator';
import { LoginThrottle } from '../http/login-throttle';
import { ZodBody } from '../http/zod-request';

/** Cookie attributes: httpOnly, SameSite=Strict, Path=/, Secure over https and in production (behind a TLS-terminating proxy). */
const cookieOptions = (req: Request, production: boolean, maxAgeMs?: number) => ({
  httpOnly: true, sameSite: 'strict' as const, secure: req.secure || production, path: '/', ...(maxAgeMs !== undefined ? { maxAge: maxAgeMs } : {}),
});

/**
 * Console sessions. Login takes an API key (a user's key or a bootstrap key; JSON or a form) and
 * sets the session cookie; the response carries the CSRF token that every state-changing request
 * with the cookie must send in `X-CSRF-Token`. Logout deletes the session server-side.
 */
@ApiTags('session')
@Controller('v1/session')
export class SessionController {
  constructor(
    @Inject(Authenticator) private readonly authenticator: Authenticator,
    @Inject(CreateSessionUseCase) private readonly createSession: CreateSessionUseCase,
    @Inject(DestroySessionUseCase) private readonly destroySession: DestroySessionUseCase,
    @Inject(LoginThrottle) private readonly throttle: LoginThrottle,
    @Inject(IDENTITY_SETTINGS) private readonly identity: IdentitySettings,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Console login: {key} → session cookie (httpOnly, SameSite=Strict) + {name, role, csrfToken}. A form post is redirected to /console.' })
  @ZodBody(CreateSessionRequest)
  async login(@Body() body: unknown, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    // Login CSRF: a foreign page must not log the browser in under the attacker's key.
    assertSameOrigin(req, 'a login');
    const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const { key } = parseRequest(CreateSessionRequest, body ?? {});
    // The key is checked first, always: a right key logs in even while its address is throttled
    // (login-throttle.ts says why); a wrong one counts, or gets 429 once its buckets are full.
    let identity;
    try {
      identity = await this.authenticator.identityForKey(key);
    } catch (e) {
      if (e instanceof AuthenticationError) await this.throttle.failed(ip, key, res);
      throw e;
    }
    await this.throttle.succeeded(ip, key);
    const { token, session } = await this.createSession.execute({ identity, ip, userAgent: req.header('user-agent') ?? null });
    res.cookie(SESSION_COOKIE, token, cookieOptions(req, this.config.production, this.identity.sessionTtlMs));
    if (req.is('application/x-www-form-urlencoded')) {
      res.redirect(303, '/console');
      return;
    }
    return { name: session.name, role: session.role, keyId: session.keyId, csrfToken: session.csrfSecret, expiresAt: session.expiresAt };
  }

  @Get('me')
  @Allow('read', 'ingest', 'feedback', 'answers')
  @ApiSecurity('api-key')
  @ApiOperation({ summary: 'Who am I: name, role, scopes, collections (null = every one), permissions, key id (and the session CSRF token when logged in with the cookie)' })
  me(@Req() req: AuthenticatedRequest) {
    const p = principalOf(req)!;
    const s = req.consoleSession;
    return {
      name: p.name, role: p.role ?? null, scopes: p.scopes ?? [], collections: p.collections ?? null, permissions: [...p.permissions].sort(), keyId: p.keyId ?? null, via: p.via,
      ...(s ? { csrfToken: s.csrfToken, expiresAt: s.expiresAt } : {}),
    };
  }

  @Delete()
  @HttpCode(200)
  @Allow('read', 'ingest', 'feedback', 'answers')
  @ApiOperation({ summary: 'Log out: the session is deleted server-side and the cookie cleared (needs X-CSRF-Token)' })
  async logout(@Req() req: AuthenticatedRequest, @Res({ passthrough: true }) res: Response) {
    return this.endSession(req, res);
  }

  @Post('logout')
  @HttpCode(200)
  @Allow('read', 'ingest', 'feedback', 'answers')
  @ApiOperation({ summary: 'Log out (same as DELETE /v1/session)' })
  async logoutPost(@Req() req: AuthenticatedRequest, @Res({ passthrough: true }) res: Response) {
    return this.endSession(req, res);
  }

  private async endSession(req: AuthenticatedRequest, res: Response) {
    const token = cookieOf(req, SESSION_COOKIE);
    if (!req.consoleSession || !token) throw new BadRequestException('no console session to log out of (this request was authenticated by an API key)');
    await this.destroySession.execute({ token, actor: actorOf(req) });
    res.clearCookie(SESSION_COOKIE, cookieOptions(req, this.config.production));
    return { loggedOut: true };
  }
}
