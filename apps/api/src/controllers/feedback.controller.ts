import { Body, Controller, Get, Headers, HttpCode, Inject, Options, Param, Post, Req, UnauthorizedException } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { AnswerFeedbackRequest, AnswerFeedbackUseCase, assertStorable, CORE_SETTINGS, SubmitFeedbackRequest, GetFeedbackUseCase, SubmitFeedbackUseCase, validateAnswerFeedback, validateFeedback, type CoreSettings } from '@forensics/core';
import { AllowFeedbackToken, Public, type AuthenticatedRequest } from '../http/api-key.guard';
import { ZodBody } from '../http/zod-request';
import { actorOf, Allow } from '../http/auth';
import { RateLimit } from '../http/rate-limit';
import { addressSource, keyReporterTrust } from '../http/reporter-trust';

@ApiTags('feedback')
@ApiSecurity('api-key')
@Controller('v1/feedback')
export class FeedbackController {
  constructor(
    @Inject(SubmitFeedbackUseCase) private readonly submit: SubmitFeedbackUseCase,
    @Inject(AnswerFeedbackUseCase) private readonly submitForAnswer: AnswerFeedbackUseCase,
    @Inject(GetFeedbackUseCase) private readonly get: GetFeedbackUseCase,
    @Inject(CORE_SETTINGS) private readonly settings: CoreSettings,
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
  async create(@Body() body: unknown, @Headers('idempotency-key') key: string | undefined, @Req() req: AuthenticatedRequest) {
    assertStorable('Idempotency-Key', key);
    if (req.feedbackToken) return this.createWithToken(body, req.feedbackToken.answerId, addressSource(req));
    const cmd = validateFeedback(body, this.settings.defaultCollection);
    const reporter = cmd.reporter ?? (req.principal ? actorOf(req) : null);
    const { event, created, queued } = await this.submit.execute({ ...cmd, reporter, idempotencyKey: key ?? null, ...keyReporterTrust(req, cmd.reporter ?? null) });
    return { id: event.id, status: event.status, duplicate: !created, queued, links: { self: `/v1/feedback/${event.id}` } };
  }

  /** CORS preflight for browsers posting with a feedback token from another origin. */
  @Options()
  @Public()
  @AllowFeedbackToken()
  @HttpCode(204)
  preflight(): void {}

  @Get(':id')
  @Allow('read', 'feedback')
  @ApiOperation({ summary: 'Status of a feedback event, judge verdicts with replies, quarantined texts' })
  async findOne(@Param('id') id: string) {
    assertStorable('id', id);
    return this.get.execute({ feedbackId: id });
  }

  private async createWithToken(body: unknown, answerId: string, reporterSource: string) {
    const claimed = (body as { answerId?: unknown } | null | undefined)?.answerId;
    if (claimed !== undefined && claimed !== answerId) throw new UnauthorizedException('this feedback token was issued for a different answer');
    const input = validateAnswerFeedback(body);
    const { event, created, queued, droppedServedIds } = await this.submitForAnswer.execute({ ...input, answerId, reporterSource });
    return {
      id: event.id, status: event.status, duplicate: !created, queued, answerId, servedIds: event.servedIds,
      ...(droppedServedIds.length
        ? { droppedServedIds, message: `${droppedServedIds.length} served text(s) are no longer in the knowledge base (purged) or are not documents; left out of the traceback` }
        : {}),
      links: { self: `/v1/feedback/${event.id}` },
    };
  }
}
