import { Controller, Get, Inject, Res, ServiceUnavailableException, UnauthorizedException, Req } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { APP_CONFIG, METRICS, type AppConfig, type ForensicsMetrics } from '@forensics/infra';
import { Public } from '../http/api-key.guard';

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Prometheus scrape endpoint. Not behind the API key: with METRICS_TOKEN set it needs
 * `Authorization: Bearer <METRICS_TOKEN>`; in production (NODE_ENV=production) it is refused (503)
 * while no token is configured.
 */
@Controller('metrics')
export class MetricsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(METRICS) private readonly metrics: ForensicsMetrics,
  ) {}

  @Get()
  @Public()
  @ApiExcludeEndpoint()
  async scrape(@Req() req: Request, @Res() res: Response): Promise<void> {
    const token = this.config.metricsToken;
    if (!token) {
      if (this.config.production) throw new ServiceUnavailableException('metrics are disabled: set METRICS_TOKEN to serve /metrics in production');
    } else {
      const m = /^Bearer\s+(.+)$/i.exec(req.header('authorization')?.trim() ?? '');
      if (!m || !safeEqual(m[1].trim(), token)) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
        throw new UnauthorizedException('metrics need Authorization: Bearer <METRICS_TOKEN>');
      }
    }
    const { contentType, body } = await this.metrics.render();
    res.status(200).setHeader('Content-Type', contentType);
    res.send(body);
  }
}
