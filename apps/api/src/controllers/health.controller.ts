import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { Runtime } from '@forensics/infra';
import { Public } from '../http/api-key.guard';
import { RUNTIME } from '../http/tokens';

async function check(fn: () => Promise<unknown>): Promise<{ ok: boolean; error?: string; ms: number }> {
  const t0 = Date.now();
  try {
    await Promise.race([fn(), new Promise((_, rej) => setTimeout(() => rej(new Error('timeout after 3000 ms')), 3000))]);
    return { ok: true, ms: Date.now() - t0 };
  } catch (e) {
    return { ok: false, error: (e as Error).message, ms: Date.now() - t0 };
  }
}

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Postgres, Redis and vector store reachability (no API key needed)' })
  async health(@Res() res: Response) {
    const [postgres, redis, vectorStore] = await Promise.all([
      check(() => this.rt.repo.ping()), check(() => this.rt.queue.ping()), check(() => this.rt.store.health()),
    ]);
    const ok = postgres.ok && redis.ok && vectorStore.ok;
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'degraded', postgres, redis, vectorStore: { ...vectorStore, kind: this.rt.store.kind }, judge: { kind: this.rt.judge.kind, model: this.rt.judge.model }, embedder: this.rt.embedder.id });
  }
}
