import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { GetFeedbackUseCase, SubmitFeedbackUseCase, validateFeedback } from '@forensics/core';
import type { Runtime } from '@forensics/infra';
import { RUNTIME } from '../http/tokens';

@ApiTags('feedback')
@ApiSecurity('api-key')
@Controller('v1/feedback')
export class FeedbackController {
  private readonly submit: SubmitFeedbackUseCase;
  private readonly get: GetFeedbackUseCase;

  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {
    this.submit = new SubmitFeedbackUseCase({ repo: rt.repo, queue: rt.queue, defaultK: rt.config.trace.k });
    this.get = new GetFeedbackUseCase({ repo: rt.repo });
  }

  @Post()
  @HttpCode(202)
  @ApiOperation({ summary: 'Report a wrong answer; persisted, then traced by the worker', description: 'Returns 202 with the event id. Same Idempotency-Key → same event.' })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'Client-chosen key; a retry with the same key returns the original event' })
  @ApiBody({ schema: { type: 'object', required: ['query', 'wrongAnswer'], properties: {
    collection: { type: 'string', example: 'default' }, query: { type: 'string', example: 'who wrote hamlet' },
    wrongAnswer: { type: 'string', example: 'Christopher Marlowe' }, correctAnswer: { type: 'string' },
    servedIds: { type: 'array', items: { type: 'string' }, description: 'ids of the texts the RAG served for this answer (judged first)' },
    reporter: { type: 'string' }, k: { type: 'integer', minimum: 1, maximum: 50 },
  } } })
  async create(@Body() body: unknown, @Headers('idempotency-key') key: string | undefined, @Req() req: Request) {
    const cmd = validateFeedback(body, this.rt.config.defaultCollection);
    const reporter = cmd.reporter ?? (req as Request & { principal?: string }).principal ?? null;
    const { event, created, queued } = await this.submit.execute({ ...cmd, reporter, idempotencyKey: key ?? null });
    return { id: event.id, status: event.status, duplicate: !created, queued, links: { self: `/v1/feedback/${event.id}` } };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Status of a feedback event, judge verdicts with replies, quarantined texts' })
  async findOne(@Param('id') id: string) {
    return this.get.execute(id);
  }
}
