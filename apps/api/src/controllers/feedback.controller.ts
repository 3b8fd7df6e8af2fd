import { Body, Controller, Get, Headers, HttpCode, Inject, Options, Param, Post, Req } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { AnswerFeedbackRequest, assertStorable, SubmitFeedbackRequest, GetFeedbackUseCase } from '@forensics/core';
import { AllowFeedbackToken, Public, type AuthenticatedRequest } from '../http/api-key.guard';
import { ZodBody, ZodResponse } from '../http/zod-request';
import { FeedbackAccepted, FeedbackView, type Out } from '../http/response.schemas';
import { Allow, collectionScopeOf } from '../http/auth';
import { FeedbackIntake } from '../http/feedback-intake';
import { RateLimit } from '../http/rate-limit';

@ApiTags('feedback')
@ApiSecurity('api-key')
@Controller('v1/feedback')
export class FeedbackController {
  constructor(
    @Inject(FeedbackIntake) private readonly intake: FeedbackIntake,
    @Inject(GetFeedbackUseCase) private readonly get: GetFeedbackUseCase,
  ) {}

  @Post()
  @Allow('feedback')
  @HttpCode(202)
  @AllowFeedbackToken()
  @RateLimit('feedback')
  @ApiOperation({
    summary: 'Report a wrong answer; persisted, then traced by the worker',
    description:
      'Returns 202 with the event id. With an API key: the full payload; same Idempotency-Key → same event. ' +
      'With a feedback token instead (browsers: `Authorization: FeedbackToken <token>` or a `feedbackToken` body field): ' +
      'collection, query, wrong answer and served ids come from the logged answer; the body may add `correctAnswer`, `wrongAnswer`, `reporter` ' +
      '(and `answerId`, which must match the token). One token → at most one event: a repeat returns it with duplicate=true.',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'Client-chosen key (API-key requests); a retry with the same key returns the original event' })
  @ZodBody(z.union([SubmitFeedbackRequest, AnswerFeedbackRequest]))
  @ZodResponse(202, FeedbackAccepted, 'Accepted')
  async create(@Body() body: unknown, @Headers('idempotency-key') key: string | undefined, @Req() req: AuthenticatedRequest): Promise<Out<typeof FeedbackAccepted>> {
    return this.intake.create(body, key, req);
  }

  /** CORS preflight for browsers posting with a feedback token from another origin. */
  @Options()
  @Public()
  @AllowFeedbackToken()
  @HttpCode(204)
  preflight(): void {}

  @Get(':id')
  @Allow('read', 'feedback')
  @ApiOperation({
    summary: 'Status of a feedback event, judge verdicts with replies, quarantined texts',
    description: 'A key limited to collections gets 404 for an event of another collection, as for one that does not exist.',
  })
  @ZodResponse(200, FeedbackView)
  async findOne(@Param('id') id: string, @Req() req: AuthenticatedRequest): Promise<Out<typeof FeedbackView>> {
    assertStorable('id', id);
    return this.get.execute({ feedbackId: id, collections: collectionScopeOf(req) });
  }
}
