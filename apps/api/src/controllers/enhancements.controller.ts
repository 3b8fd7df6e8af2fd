import { BadRequestException, Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApproveEnhancementUseCase, assertStorable, CorrectAnswerRequest, DeleteEnhancementUseCase, EnhanceAnswerUseCase, ListEnhancementsQuery, ListEnhancementsUseCase, parseRequest } from '@forensics/core';
import { actorOf } from '../http/api-key.guard';
import { collectionScopeOf, principalOf } from '../http/auth';
import { ZodBody, ZodQuery, ZodResponse } from '../http/zod-request';
import { CorrectAnswerResult, type Out } from '../http/response.schemas';
import { Allow } from '../http/auth';

/**
 * Benign-text enhancements (RAGForensics, arXiv 2504.21668, App. 8.3): set a correct answer, list, approve, delete.
 * Writing what the RAG serves is a reviewer's decision (issue 56): with `decide` a correct answer goes live; a
 * `feedback` key may only suggest one, for an event it reported, and the suggestion waits for a reviewer.
 */
@ApiTags('enhancements')
@ApiSecurity('api-key')
@Controller('v1')
export class EnhancementsController {
  constructor(
    @Inject(EnhanceAnswerUseCase) private readonly enhance: EnhanceAnswerUseCase,
    @Inject(DeleteEnhancementUseCase) private readonly remove: DeleteEnhancementUseCase,
    @Inject(ListEnhancementsUseCase) private readonly listEnhancements: ListEnhancementsUseCase,
    @Inject(ApproveEnhancementUseCase) private readonly approveEnhancement: ApproveEnhancementUseCase,
  ) {}

  @Post('feedback/:id/correct-answer')
  @Allow('feedback', 'decide')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Set the correct answer of a feedback event and create its benign-text enhancement',
    description:
      'With the `decide` permission (reviewer, admin) the enhancement is served at once. A `feedback`-scoped service key may only ' +
      'suggest a correct answer for an event it reported (403 otherwise): the enhancement is PROPOSED, not served, until a reviewer approves it. ' +
      'A key limited to collections gets 404 for an event of another collection, as for one that does not exist.',
  })
  @ZodBody(CorrectAnswerRequest)
  @ZodResponse(200, CorrectAnswerResult)
  async setCorrectAnswer(@Param('id') id: string, @Body() body: unknown, @Req() req: Request): Promise<Out<typeof CorrectAnswerResult>> {
    assertStorable('id', id);
    const { correctAnswer: c } = parseRequest(CorrectAnswerRequest, body ?? {});
    const actor = actorOf(req);
    const p = principalOf(req);
    const reviewer = p?.permissions.has('decide') === true;
    const { enhancement, created, decision } = await this.enhance.execute({
      feedbackId: id, correctAnswer: c, actor, authority: reviewer ? 'reviewer' : 'suggestion', suggestedBy: `key:${p?.keyId ?? p?.name ?? 'unknown'}`,
      collections: collectionScopeOf(req),
    });
    return { created, served: enhancement.state === 'ACTIVE', reason: decision.reason, enhancement };
  }

  @Post('enhancements/:id/approve')
  @Allow('decide')
  @HttpCode(200)
  @ApiOperation({ summary: 'Approve a proposed enhancement: it is served from now on (an active one is returned as it is; a deleted one is 409)' })
  async approve(@Param('id') id: string, @Req() req: Request) {
    assertStorable('id', id);
    const row = await this.approveEnhancement.execute({ enhancementId: id, actor: actorOf(req) });
    return { id: row.id, state: row.state, approvedAt: row.approvedAt, approvedBy: row.approvedBy };
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
  @ApiOperation({ summary: 'Delete an enhancement, or reject a proposed one: its retrieval proxy leaves the vector store (the record stays, audited)' })
  async delete(@Param('id') id: string, @Req() req: Request) {
    assertStorable('id', id);
    const actor = actorOf(req);
    const row = await this.remove.execute({ enhancementId: id, actor });
    return { id: row.id, state: row.state, deletedAt: row.deletedAt, deletedBy: row.deletedBy };
  }
}
