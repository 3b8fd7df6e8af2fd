import { Body, Controller, Get, HttpCode, Inject, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ListDeadLettersQuery, ListDeadLettersUseCase, RedriveFeedbackUseCase, RedriveRequest } from '@forensics/core';
import { actorOf } from '../http/api-key.guard';
import { Allow, principalOf } from '../http/auth';
import { ZodBody, ZodQuery } from '../http/zod-request';

/**
 * Dead letters (issue 14, item 3): FAILED feedback events and failed jobs of every queue, and
 * their re-drive after the cause is fixed. Reading needs `read` (reasons in full for admins —
 * `manage` — and sanitised for everybody else, as GET /v1/feedback/:id shows them); re-driving
 * needs `manage`.
 */
@ApiTags('dead letters')
@ApiSecurity('api-key')
@Controller('v1/dead-letters')
export class DeadLettersController {
  constructor(
    @Inject(ListDeadLettersUseCase) private readonly list: ListDeadLettersUseCase,
    @Inject(RedriveFeedbackUseCase) private readonly redrive: RedriveFeedbackUseCase,
  ) {}

  @Get()
  @Allow('read')
  @ApiOperation({ summary: 'FAILED feedback events (reason, failure time, attempts, failure history) and failed jobs of every queue (failedReason, attemptsMade), each list paginated' })
  @ZodQuery(ListDeadLettersQuery)
  async get(@Query() query: unknown, @Req() req: Request) {
    return this.list.execute(query ?? {}, { fullReasons: principalOf(req)?.permissions.has('manage') ?? false });
  }

  @Post('redrive')
  @Allow('manage')
  @HttpCode(200)
  @ApiOperation({ summary: 'Re-drive FAILED events ({feedbackIds} or {all: true, collection?}) back to RECEIVED with a fresh job, and/or retry failed jobs ({jobs: [{queue, id}]}); idempotent, per-id outcome' })
  @ZodBody(RedriveRequest)
  async redriveDeadLetters(@Body() body: unknown, @Req() req: Request) {
    return this.redrive.execute(body ?? {}, actorOf(req));
  }
}
