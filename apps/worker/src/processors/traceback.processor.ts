import { Logger } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { EnhanceAnswerUseCase, GeneratorError, JudgeError, PermanentError, RunTracebackUseCase, VerifyTracebackUseCase } from '@forensics/core';
import type { Runtime, TracebackJobData } from '@forensics/infra';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Thin processor: validates the payload, calls the traceback use case, maps permanent failures to
 * UnrecoverableError (no retry) and, after the last failed attempt, marks the event FAILED.
 */
export class TracebackProcessor {
  private readonly log = new Logger('traceback');
  private readonly useCase: RunTracebackUseCase;
  private readonly verify: VerifyTracebackUseCase;
  private readonly enhance: EnhanceAnswerUseCase;

  constructor(private readonly rt: Runtime, failpoint?: (name: string) => void) {
    this.useCase = new RunTracebackUseCase({
      failpoint,
      repo: rt.repo, store: rt.store, embedder: rt.embedder, judge: rt.judge,
      trace: { maxRounds: rt.config.trace.maxRounds, maxJudgeCalls: rt.config.trace.maxJudgeCalls, judgeConcurrency: rt.config.trace.judgeConcurrency },
      evidence: { enabled: rt.config.evidence.enabled, birdK: rt.config.evidence.birdK, progrankRuns: rt.config.evidence.progrankRuns, progrankTokenDropout: rt.config.evidence.progrankTokenDropout },
      probe: rt.probe, probeUnavailableReason: rt.probeUnavailableReason, neighbourCache: rt.neighbourCache,
      policy: rt.config.policy,
    });
    this.verify = new VerifyTracebackUseCase({ repo: rt.repo, store: rt.store, embedder: rt.embedder, judge: rt.judge, generator: rt.generator });
    this.enhance = new EnhanceAnswerUseCase({ repo: rt.repo, store: rt.store, embedder: rt.embedder, generator: rt.generator });
  }

  async process(job: Job<TracebackJobData>): Promise<unknown> {
    const id = job.data?.feedbackId;
    if (typeof id !== 'string' || !UUID.test(id)) throw new UnrecoverableError(`invalid payload: feedbackId must be a UUID, got ${JSON.stringify(job.data)}`);
    this.log.log(job.data.step ? `resuming ${id} (attempt ${job.attemptsMade + 1}, last step '${job.data.step}')` : `tracing ${id}`);
    try {
      const out = await this.useCase.execute({
        feedbackId: id,
        onProgress: async (step, detail) => {
          if (process.env.FORENSICS_DEBUG) this.log.log(`${id}: ${step} ${JSON.stringify(detail ?? {})}`);
          await job.updateData({ ...job.data, step });
        },
      });
      // Was the error attack-induced? Then, when the correct answer is known, benign-text enhancement.
      const ev = (await this.rt.repo.getFeedback(id))!;
      const quarantinedForEvent = (await this.rt.repo.listQuarantines({ feedbackId: id, state: 'QUARANTINED' })).length;
      const verification = await this.verify.execute(ev, quarantinedForEvent);
      await job.updateData({ ...job.data, step: 'verified' });
      let enhanced = false;
      if (ev.correctAnswer) {
        enhanced = (await this.enhance.execute({ feedbackId: id, actor: 'traceback-worker' })).created;
        await job.updateData({ ...job.data, step: 'enhanced' });
      }
      this.log.log(`${id}: ${out.status} poisoned=${out.poisoned.length} benign=${out.benign.length} undetermined=${out.undetermined.length} review=${out.review.length} judgeCalls=${out.judgeCalls} verification=${verification.verification}${enhanced ? ' enhanced' : ''}`);
      return { status: out.status, poisoned: out.poisoned.length, quarantined: out.quarantined.length, verification: verification.verification, enhanced };
    } catch (e) {
      if (e instanceof PermanentError || ((e instanceof JudgeError || e instanceof GeneratorError) && !e.transient)) throw new UnrecoverableError(e.message);
      throw e;
    }
  }

  /** Called for every failed attempt; acts after the last one (or a permanent failure). */
  async onFailed(job: Job<TracebackJobData> | undefined, err: Error): Promise<void> {
    if (!job) return;
    const final = err instanceof UnrecoverableError || err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
    const id = job.data?.feedbackId;
    this.log.warn(`${id}: attempt ${job.attemptsMade} failed: ${err.message}${final ? ' (final)' : ' (will retry)'}`);
    if (!final || typeof id !== 'string' || !UUID.test(id)) return;
    const ev = await this.rt.repo.getFeedback(id);
    if (!ev) return;
    await this.rt.repo.updateFeedback(id, { status: 'FAILED', failureReason: err.message.slice(0, 2000) });
    await this.rt.repo.audit({ actor: 'traceback-worker', action: 'traceback.failed', entityType: 'FeedbackEvent', entityId: id, details: { reason: err.message.slice(0, 2000), attempts: job.attemptsMade } });
  }
}
