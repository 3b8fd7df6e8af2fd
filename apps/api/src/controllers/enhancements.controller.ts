import { BadRequestException, Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CORRECT_ANSWER_LIMIT, DeleteEnhancementUseCase, EnhanceAnswerUseCase, ListEnhancementsUseCase, ValidationError } from '@forensics/core';
import { actorOf } from '../http/api-key.guard';

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
  @HttpCode(200)
  @ApiOperation({ summary: 'Set the correct answer of a feedback event and create its benign-text enhancement' })
  @ApiBody({ schema: { type: 'object', required: ['correctAnswer'], properties: { correctAnswer: { type: 'string', maxLength: CORRECT_ANSWER_LIMIT } } } })
  async setCorrectAnswer(@Param('id') id: string, @Body() body: { correctAnswer?: unknown } | undefined, @Req() req: Request) {
    const c = body?.correctAnswer;
    if (typeof c !== 'string') throw new ValidationError('correctAnswer must be a string');
    const actor = actorOf(req);
    const { enhancement, created } = await this.enhance.execute({ feedbackId: id, correctAnswer: c, actor });
    return { created, enhancement };
  }

  @Get('enhancements')
  @ApiOperation({ summary: 'List benign-text enhancements (filter by collection, feedbackId, state)' })
  async list(@Query('collection') collection?: string, @Query('feedbackId') feedbackId?: string, @Query('state') state?: string) {
    if (state && state !== 'ACTIVE' && state !== 'DELETED') throw new BadRequestException('state must be ACTIVE or DELETED');
    return { items: await this.listEnhancements.execute({ collection, feedbackId, state: state as 'ACTIVE' | 'DELETED' | undefined }) };
  }

  @Delete('enhancements/:id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete an enhancement: its retrieval proxy leaves the vector store (the record stays, audited)' })
  async delete(@Param('id') id: string, @Req() req: Request) {
    const actor = actorOf(req);
    const row = await this.remove.execute({ enhancementId: id, actor });
    return { id: row.id, state: row.state, deletedAt: row.deletedAt, deletedBy: row.deletedBy };
  }
}
