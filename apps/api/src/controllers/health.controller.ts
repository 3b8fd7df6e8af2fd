import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CheckHealthUseCase } from '@forensics/core';
import { Public } from '../http/api-key.guard';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(@Inject(CheckHealthUseCase) private readonly check: CheckHealthUseCase) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Postgres, Redis and vector store reachability (no API key needed)' })
  async health(@Res() res: Response) {
    const { ok, ...report } = await this.check.execute();
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'degraded', ...report });
  }
}
