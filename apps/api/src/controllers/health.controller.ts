import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CheckHealthUseCase } from '@forensics/core';
import { Public } from '../http/api-key.guard';
import { Allow } from '../http/auth';
import { HttpDrain } from '../http/http-drain';

/**
 * Health. The public part says up/down per dependency and nothing else (issue 10: no error text,
 * host:port, model or adapter names to anonymous callers); the full report (errors, latencies,
 * judge, embedder, vector store kind) is behind the API key. While the process drains on its way
 * out (SIGTERM, http-drain.ts) both answer 503 `draining` without checking anything: a load
 * balancer takes it out of rotation.
 */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(@Inject(CheckHealthUseCase) private readonly check: CheckHealthUseCase, @Inject(HttpDrain) private readonly drain: HttpDrain) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Up/down of Postgres, Redis and the vector store (no API key needed): {status, postgres:{ok}, redis:{ok}, vectorStore:{ok}}; 503 {status:"draining"} while the process shuts down' })
  async health(@Res() res: Response) {
    if (this.drain.draining) return void res.status(503).json({ status: 'draining' });
    const r = await this.check.execute();
    res.status(r.ok ? 200 : 503).json({ status: r.ok ? 'ok' : 'degraded', postgres: { ok: r.postgres.ok }, redis: { ok: r.redis.ok }, vectorStore: { ok: r.vectorStore.ok } });
  }

  @Get('details')
  @Allow('read')
  @ApiSecurity('api-key')
  @ApiOperation({ summary: 'Full health report (API key): per-dependency errors and latencies, vector store kind, judge and embedder' })
  async details(@Res() res: Response) {
    if (this.drain.draining) return void res.status(503).json({ status: 'draining' });
    const { ok, ...report } = await this.check.execute();
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'degraded', ...report });
  }
}
