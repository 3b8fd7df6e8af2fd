import { BadGatewayException, Body, Controller, HttpCode, Inject, Post, Req, ServiceUnavailableException } from '@nestjs/common';
import type { Request } from 'express';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AnswerQueryRequest, AnswerQueryUseCase, CORE_SETTINGS, GeneratorError, LogAnswerRequest, LogAnswerUseCase, validateAnswerQuery, validateLogAnswer, type CoreSettings } from '@forensics/core';
import { ZodBody, ZodResponse } from '../http/zod-request';
import { LogAnswerResponse, RagAnswerResponse, type Out } from '../http/response.schemas';
import { Allow, assertCollectionAllowed } from '../http/auth';
import { RateLimit } from '../http/rate-limit';

@ApiTags('answers')
@ApiSecurity('api-key')
@Controller('v1')
export class AnswersController {
  constructor(
    @Inject(AnswerQueryUseCase) private readonly answer: AnswerQueryUseCase,
    @Inject(LogAnswerUseCase) private readonly log: LogAnswerUseCase,
    @Inject(CORE_SETTINGS) private readonly settings: CoreSettings,
  ) {}

  @Post('rag/answer')
  @Allow('answers')
  @RateLimit('answers')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Answer a query with the built-in RAG; the answer is logged and comes with a feedback token',
    description: 'Top-k from the collection (quarantined texts excluded), retrieval proxies replaced by their benign texts (BTE prompt then), generator answer. Hand `feedbackToken` to the browser for the feedback button.',
  })
  @ZodBody(AnswerQueryRequest)
  @ZodResponse(200, RagAnswerResponse)
  async ragAnswer(@Body() body: unknown, @Req() req: Request): Promise<Out<typeof RagAnswerResponse>> {
    const cmd = validateAnswerQuery(body, { collection: this.settings.defaultCollection, k: this.settings.defaultK });
    assertCollectionAllowed(req, cmd.collection);
    try {
      const r = await this.answer.execute(cmd);
      return { ...r, feedbackTokenExpiresAt: r.feedbackTokenExpiresAt.toISOString() };
    } catch (e) {
      if (e instanceof GeneratorError) throw e.transient ? new ServiceUnavailableException(`${e.message} (retry later)`) : new BadGatewayException(e.message);
      throw e;
    }
  }

  @Post('answers')
  @Allow('answers')
  @RateLimit('answers')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Log an answer of an external RAG (what it served and said); returns a feedback token',
    description: 'servedIds are this service\'s ids of the served texts (ingestion returns them; they are the vector store ids). Unknown ids → 400 listing them.',
  })
  @ZodBody(LogAnswerRequest)
  @ZodResponse(201, LogAnswerResponse, 'Created')
  async logAnswer(@Body() body: unknown, @Req() req: Request): Promise<Out<typeof LogAnswerResponse>> {
    const cmd = validateLogAnswer(body, this.settings.defaultCollection);
    assertCollectionAllowed(req, cmd.collection);
    const r = await this.log.execute(cmd);
    return { ...r, feedbackTokenExpiresAt: r.feedbackTokenExpiresAt.toISOString() };
  }
}
