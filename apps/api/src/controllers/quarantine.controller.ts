import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import {
  ApproveQuarantineUseCase, assertStorable, ListQuarantinesQuery, ListQuarantinesUseCase, parseRequest, RestoreQuarantineUseCase, ReviewNoteRequest, type QuarantineRow,
} from '@forensics/core';
import { actorOf } from '../http/api-key.guard';
import { ZodBody, ZodQuery, ZodResponse } from '../http/zod-request';
import { QuarantineDecision, QuarantineList, type Out } from '../http/response.schemas';
import { Allow, principalOf } from '../http/auth';

const view = (r: QuarantineRow): Out<typeof QuarantineDecision> => ({ id: r.id, state: r.state, documentId: r.documentId, resolvedBy: r.resolvedBy, resolvedAt: r.resolvedAt });

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
  @Allow('decide')
  @HttpCode(200)
  @ApiOperation({ summary: 'Confirm a NEEDS_REVIEW record: the text is quarantined (out of serving)' })
  @ZodBody(ReviewNoteRequest, { required: false })
  @ZodResponse(200, QuarantineDecision)
  async approveOne(@Param('id') id: string, @Body() body: unknown, @Req() req: Request) {
    assertStorable('id', id);
    const { note } = parseRequest(ReviewNoteRequest, body ?? {});
    return view(await this.approve.execute({ quarantineId: id, actor: actorOf(req), claimant: principalOf(req)?.name, override: principalOf(req)?.role === 'admin', note }));
  }

  @Get()
  @Allow('read')
  @ApiOperation({ summary: 'List quarantine records (filter by state, collection)' })
  @ZodQuery(ListQuarantinesQuery)
  @ZodResponse(200, QuarantineList)
  async list(@Query() query: unknown): Promise<Out<typeof QuarantineList>> {
    return { items: await this.listQuarantines.execute(parseRequest(ListQuarantinesQuery, query)) };
  }

  @Post(':id/restore')
  @Allow('decide')
  @HttpCode(200)
  @ApiOperation({ summary: 'Put a quarantined text back into serving, exactly as it was' })
  @ZodBody(ReviewNoteRequest, { required: false })
  @ZodResponse(200, QuarantineDecision)
  async restoreOne(@Param('id') id: string, @Body() body: unknown, @Req() req: Request) {
    assertStorable('id', id);
    const { note } = parseRequest(ReviewNoteRequest, body ?? {});
    return view(await this.restore.execute({ quarantineId: id, actor: actorOf(req), claimant: principalOf(req)?.name, override: principalOf(req)?.role === 'admin', note }));
  }
}
