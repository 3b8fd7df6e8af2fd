import { Controller, Get, Inject, Logger, Res } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CheckHealthUseCase, type HealthReport } from '@forensics/core';
import { Public } from '../http/api-key.guard';
import { Allow } from '../http/auth';
import { HttpDrain } from '../http/http-drain';

/**
 * Health. The public part says up/down per dependency and nothing else (issue 10: no error text,
 * host:port, model or adapter names to anonymous callers); the full report (errors, latencies,
 * judge, embedder, vector store kind) is behind the API key. While the process drains on its way
 * out (SIGTERM, http-drain.ts) both answer 503 `draining` without checking anything: a load
 * balancer takes it out of rotation.
 *
 * A 503 `degraded` is logged as one warning that names each dependency down and why
 * (`health: redis down (timeout after 3000 ms, 3001 ms)`), no stack: issue 57 found only pino-http's
 * error line with a made-up stack that never said which dependency failed.
 */
@ApiTags('health')
@Controller('health')
export class HealthController {
  private readonly log = new Logger('health');

  constructor(@Inject(CheckHealthUseCase) private readonly check: CheckHealthUseCase, @Inject(HttpDrain) private readonly drain: HttpDrain) {}

  /** The report, with a warning naming every dependency down (the public answer says only up/down). */
  private async checked(): Promise<HealthReport> {
    const r = await this.check.execute();
    if (!r.ok) {
      const down = ([['postgres', r.postgres], ['redis', r.redis], [`vector store (${r.vectorStore.kind})`, r.vectorStore]] as const)
        .filter(([, d]) => !d.ok)
        .map(([name, d]) => `${name} down (${(d.error ?? 'no reason given').split('\n')[0]!.slice(0, 300)}, ${d.ms} ms)`);
      this.log.warn(`health: ${down.join('; ')}`);
    }
    return r;
  }

  @Get()
  @Public()
  @ApiOperation({ summary: 'Up/down of Postgres, Redis and the vector store (no API key needed): {status, postgres:{ok}, redis:{ok}, vectorStore:{ok}}; 503 {status:"draining"} while the process shuts down' })
  async health(@Res() res: Response) {
    if (this.drain.draining) return void res.status(503).json({ status: 'draining' });
    const r = await this.checked();
    res.status(r.ok ? 200 : 503).json({ status: r.ok ? 'ok' : 'degraded', postgres: { ok: r.postgres.ok }, redis: { ok: r.redis.ok }, vectorStore: { ok: r.vectorStore.ok } });
  }

  @Get('details')
  @Allow('read')
  @ApiSecurity('api-key')
  @ApiOperation({ summary: 'Full health report (API key): per-dependency errors and latencies, vector store kind, judge and embedder' })
  async details(@Res() res: Response) {
    if (this.drain.draining) return void res.status(503).json({ status: 'draining' });
    const { ok, ...report } = await this.checked();
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'degraded', ...report });
  }
}
