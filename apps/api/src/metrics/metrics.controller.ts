import { Controller, Get, Inject, Res, ServiceUnavailableException, UnauthorizedException, Req } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { APP_CONFIG, METRICS, metricsAccess, type AppConfig, type ForensicsMetrics } from '@forensics/infra';
import { Public } from '../http/api-key.guard';

/**
 * Prometheus scrape endpoint. Not behind the API key: with METRICS_TOKEN set it needs
 * `Authorization: Bearer <METRICS_TOKEN>`; in production (NODE_ENV=production) it is refused (503)
 * while no token is configured (the rule is `metricsAccess`, shared with the worker's /metrics).
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
    const access = metricsAccess(this.config, req.header('authorization'));
    if (!access.ok) {
      if (access.status === 503) throw new ServiceUnavailableException(access.message);
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      throw new UnauthorizedException(access.message);
    }
    const { contentType, body } = await this.metrics.render();
    res.status(200).setHeader('Content-Type', contentType);
    res.send(body);
  }
}
