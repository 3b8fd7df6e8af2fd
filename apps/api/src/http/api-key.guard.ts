import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { Runtime } from '@forensics/infra';
import { RUNTIME } from './tokens';

export const PUBLIC_ROUTE = 'forensics:public';
/** Marks a route that needs no API key (health). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Every endpoint but health needs an API key: `X-API-Key: <key>` or `Authorization: Bearer <key>`. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(@Inject(Reflector) private readonly reflector: Reflector, @Inject(RUNTIME) private readonly runtime: Runtime) {}

  canActivate(ctx: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [ctx.getHandler(), ctx.getClass()])) return true;
    const req = ctx.switchToHttp().getRequest<Request>();
    const header = req.header('x-api-key') ?? req.header('authorization')?.replace(/^Bearer\s+/i, '');
    if (!header) throw new UnauthorizedException('missing API key: send X-API-Key or Authorization: Bearer <key>');
    if (!this.runtime.config.apiKeys.some((k) => safeEqual(k, header))) throw new UnauthorizedException('invalid API key');
    (req as Request & { principal?: string }).principal = `api-key:${header.slice(0, 4)}…`;
    return true;
  }
}
