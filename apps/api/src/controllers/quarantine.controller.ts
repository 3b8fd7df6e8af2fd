import { BadRequestException, Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { RestoreQuarantineUseCase, type QuarantineState } from '@forensics/core';
import type { Runtime } from '@forensics/infra';
import { RUNTIME } from '../http/tokens';

const STATES = ['QUARANTINED', 'RESTORED', 'PURGED'];

@ApiTags('quarantine')
@ApiSecurity('api-key')
@Controller('v1/quarantine')
export class QuarantineController {
  private readonly restore: RestoreQuarantineUseCase;

  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {
    this.restore = new RestoreQuarantineUseCase({ repo: rt.repo, store: rt.store });
  }

  @Get()
  @ApiOperation({ summary: 'List quarantine records (filter by state, collection)' })
  async list(@Query('state') state?: string, @Query('collection') collection?: string) {
    if (state && !STATES.includes(state)) throw new BadRequestException(`state must be one of ${STATES.join(', ')}`);
    const rows = await this.rt.repo.listQuarantines({ state: state as QuarantineState | undefined, collection });
    return { items: rows };
  }

  @Post(':id/restore')
  @HttpCode(200)
  @ApiOperation({ summary: 'Put a quarantined text back into serving, exactly as it was' })
  @ApiBody({ required: false, schema: { type: 'object', properties: { note: { type: 'string', maxLength: 2000 } } } })
  async restoreOne(@Param('id') id: string, @Body() body: { note?: unknown } | undefined, @Req() req: Request) {
    const note = body?.note;
    if (note !== undefined && (typeof note !== 'string' || note.length > 2000)) throw new BadRequestException('note must be a string of at most 2000 characters');
    const actor = (req as Request & { principal?: string }).principal ?? 'api';
    const rec = await this.restore.execute({ quarantineId: id, actor, note: note as string | undefined });
    return { id: rec.id, state: rec.state, documentId: rec.documentId, resolvedBy: rec.resolvedBy, resolvedAt: rec.resolvedAt };
  }
}
