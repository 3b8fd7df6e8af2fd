import { BadRequestException, Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { assertStorable, CorrectAnswerRequest, DeleteEnhancementUseCase, EnhanceAnswerUseCase, ListEnhancementsQuery, ListEnhancementsUseCase, parseRequest } from '@forensics/core';
import { actorOf } from '../http/api-key.guard';
import { ZodBody, ZodQuery } from '../http/zod-request';
import { Allow } from '../http/auth';

/** Benign-text enhancements (RAGForensics, arXiv 2504.21668, App. 8.3): set a correct answer, list, delete. */
@ApiTags('enhancements')
@ApiSecurity('api-key')
@Controller('v1')
export class EnhancementsController {
  constructor(
    @Inject(EnhanceAnswerUseCase) private readonly enhance: EnhanceAnswerUseCase,
    @Inject(DeleteEnhancementUseCase) private readonly remove: DeleteEnhancementUseCase,
    @Inject(ListEnhancementsUseCase) private readonly listEnhancements: ListEnhancementsUseCase,
  ) {}

  @Post('feedback/:id/correct-answer')
  @Allow('feedback', 'decide')
  @HttpCode(200)
  @ApiOperation({ summary: 'Set the correct answer of a feedback event and create its benign-text enhancement' })
  @ZodBody(CorrectAnswerRequest)
  async setCorrectAnswer(@Param('id') id: string, @Body() body: unknown, @Req() req: Request) {
    assertStorable('id', id);
    const { correctAnswer: c } = parseRequest(CorrectAnswerRequest, body ?? {});
    const actor = actorOf(req);
    const { enhancement, created } = await this.enhance.execute({ feedbackId: id, correctAnswer: c, actor });
    return { created, enhancement };
  }

  @Get('enhancements')
  @Allow('read')
  @ApiOperation({ summary: 'List benign-text enhancements (filter by collection, feedbackId, state)' })
  @ZodQuery(ListEnhancementsQuery)
  async list(@Query() query: unknown) {
    return { items: await this.listEnhancements.execute(parseRequest(ListEnhancementsQuery, query)) };
  }

  @Delete('enhancements/:id')
  @Allow('decide')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete an enhancement: its retrieval proxy leaves the vector store (the record stays, audited)' })
  async delete(@Param('id') id: string, @Req() req: Request) {
    assertStorable('id', id);
    const actor = actorOf(req);
    const row = await this.remove.execute({ enhancementId: id, actor });
    return { id: row.id, state: row.state, deletedAt: row.deletedAt, deletedBy: row.deletedBy };
  }
}
