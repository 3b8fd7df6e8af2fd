import { Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { AnswerFeedbackUseCase, assertStorable, CORE_SETTINGS, SubmitFeedbackUseCase, validateAnswerFeedback, validateFeedback, type CoreSettings } from '@forensics/core';
import { actorOf, assertCollectionAllowed, type Caller } from './auth';
import { addressSource, keyReporterTrust } from './reporter-trust';
import { FeedbackAccepted, type Out } from './response.schemas';

/**
 * POST /v1/feedback after authentication, authorisation and rate limits: the body validated for how
 * the request authenticated (API key: the full payload; feedback token: what the logged answer
 * lacks), the report's trust and source from the credentials (never from the body), the use case,
 * and the 202's body. Called by FeedbackController and by the intake's fast path (fast-intake.ts),
 * so both take the same report the same way.
 */
@Injectable()
export class FeedbackIntake {
  constructor(
    @Inject(SubmitFeedbackUseCase) private readonly submit: SubmitFeedbackUseCase,
    @Inject(AnswerFeedbackUseCase) private readonly submitForAnswer: AnswerFeedbackUseCase,
    @Inject(CORE_SETTINGS) private readonly settings: CoreSettings,
  ) {}

  async create(body: unknown, idempotencyKey: string | undefined, req: Caller): Promise<Out<typeof FeedbackAccepted>> {
    assertStorable('Idempotency-Key', idempotencyKey);
    if (req.feedbackToken) return this.createWithToken(body, req.feedbackToken.answerId, addressSource(req));
    const cmd = validateFeedback(body, this.settings.defaultCollection);
    assertCollectionAllowed(req, cmd.collection); // a key limited to collections (issue 56, item 7b): 403, nothing written
    const reporter = cmd.reporter ?? (req.principal ? actorOf(req) : null);
    const { event, created, queued } = await this.submit.execute({ ...cmd, reporter, idempotencyKey: idempotencyKey ?? null, ...keyReporterTrust(req, cmd.reporter ?? null) });
    return { id: event.id, status: event.status, duplicate: !created, queued, links: { self: `/v1/feedback/${event.id}` } };
  }

  private async createWithToken(body: unknown, answerId: string, reporterSource: string): Promise<Out<typeof FeedbackAccepted>> {
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
