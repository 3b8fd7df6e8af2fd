import { BadRequestException, Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApproveQuarantineUseCase, ListQuarantinesUseCase, RestoreQuarantineUseCase, type QuarantineRow, type QuarantineState } from '@forensics/core';
import { actorOf } from '../http/api-key.guard';

const STATES = ['QUARANTINED', 'NEEDS_REVIEW', 'RESTORED', 'PURGED'];

/** Body of restore / approve: an optional reviewer note. */
function reviewNote(body: { note?: unknown } | undefined): string | undefined {
  const note = body?.note;
  if (note !== undefined && (typeof note !== 'string' || note.length > 2000)) throw new BadRequestException('note must be a string of at most 2000 characters');
  return note as string | undefined;
}

const view = (r: QuarantineRow) => ({ id: r.id, state: r.state, documentId: r.documentId, resolvedBy: r.resolvedBy, resolvedAt: r.resolvedAt });

@ApiTags('quarantine')
@ApiSecurity('api-key')
@Controller('v1/quarantine')
export class QuarantineController {
  constructor(
    @Inject(RestoreQuarantineUseCase) private readonly restore: RestoreQuarantineUseCase,
    @Inject(ApproveQuarantineUseCase) private readonly approve: ApproveQuarantineUseCase,
    @Inject(ListQuarantinesUseCase) private readonly listQuarantines: ListQuarantinesUseCase,
  ) {}

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Confirm a NEEDS_REVIEW record: the text is quarantined (out of serving)' })
  @ApiBody({ required: false, schema: { type: 'object', properties: { note: { type: 'string', maxLength: 2000 } } } })
  async approveOne(@Param('id') id: string, @Body() body: { note?: unknown } | undefined, @Req() req: Request) {
    return view(await this.approve.execute({ quarantineId: id, actor: actorOf(req), note: reviewNote(body) }));
  }

  @Get()
  @ApiOperation({ summary: 'List quarantine records (filter by state, collection)' })
  async list(@Query('state') state?: string, @Query('collection') collection?: string) {
    if (state && !STATES.includes(state)) throw new BadRequestException(`state must be one of ${STATES.join(', ')}`);
    const rows = await this.listQuarantines.execute({ state: state as QuarantineState | undefined, collection });
    return { items: rows };
  }

  @Post(':id/restore')
  @HttpCode(200)
  @ApiOperation({ summary: 'Put a quarantined text back into serving, exactly as it was' })
  @ApiBody({ required: false, schema: { type: 'object', properties: { note: { type: 'string', maxLength: 2000 } } } })
  async restoreOne(@Param('id') id: string, @Body() body: { note?: unknown } | undefined, @Req() req: Request) {
    return view(await this.restore.execute({ quarantineId: id, actor: actorOf(req), note: reviewNote(body) }));
  }
}
