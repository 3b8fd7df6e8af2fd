import { PermanentError } from '../../../domain/errors';
import { isTerminal, PENDING_STATUSES } from '../../../domain/feedback-status';
import type { FeedbackEventRepository, FeedbackStatus, PipelineStep, Verification } from '../../../ports/repositories';
import type { Clock, Failpoints } from '../../../ports/runtime.port';
import { CLOCK, CORE_SETTINGS, FAILPOINTS, FEEDBACK_EVENTS } from '../../../ports/tokens';
import type { CoreSettings } from '../../../settings';
import type { InjectMap } from '../../../use-case';
import { EnhanceAnswerUseCase } from '../../serving/enhance-answer/enhance-answer.use-case';
import { RunTracebackUseCase, type TracebackOutcome } from '../../traceback/run-traceback/run-traceback.use-case';
import { VerifyTracebackUseCase } from '../../traceback/verify-traceback/verify-traceback.use-case';

export interface ProcessFeedbackEventCommand {
  feedbackId: string;
  /** Progress reporting (e.g. the job's log); the event row is what resumption reads. */
  onProgress?: (step: string, detail?: Record<string, unknown>) => Promise<void> | void;
  /**
   * Aborted: stop at the next safe point and throw the signal's reason (the worker's drain timeout, or a job
   * lock lost). Safe points lie between writes that belong together — between steps, before each judge call,
   * between rounds, before each text's decision (a quarantine's Postgres and store writes stay one unit) — so
   * the stopped run leaves what a later run resumes from, and nothing of it runs on once it has thrown.
   */
  signal?: AbortSignal;
}

export interface ProcessFeedbackEventResult {
  feedbackId: string;
  /** The event's status when this run ended. */
  status: FeedbackStatus;
  /** True when the event was already terminal: nothing was done. */
  skipped: boolean;
  /** The step the run started after (null = from the beginning). */
  resumedAfter: PipelineStep | null;
  /** This run's traceback outcome; null when the trace had completed in an earlier run. */
  trace: TracebackOutcome | null;
  verification: Verification | null;
  enhanced: boolean;
}

export interface ProcessFeedbackEventDeps {
  feedback: FeedbackEventRepository;
  traceback: RunTracebackUseCase;
  verify: VerifyTracebackUseCase;
  enhance: EnhanceAnswerUseCase;
  failpoints: Failpoints;
  clock: Clock;
  settings: CoreSettings;
}

/**
 * One feedback event through the whole pipeline: trace (RAGForensics + evidence + policy +
 * quarantine) → verify (was it attack-induced?) → enhance (benign text, when the correct answer
 * is known). After each step the event's row records it (`step`), so a retried, stalled or
 * re-delivered job resumes after the last completed step — the row, not the job, is the source of
 * truth. Within the trace, persisted verdicts make a rerun judge nothing twice.
 *
 * Status: QUEUED/RECEIVED/TRACING → TRACING when a run starts (attempts + 1), → TRACED or BOUNDED
 * (the trace's outcome) when all steps are done; all compare-and-set, never backwards. An event
 * already terminal is left alone.
 */
export class ProcessFeedbackEventUseCase {
  static readonly inject: InjectMap<ProcessFeedbackEventDeps> = {
    feedback: FEEDBACK_EVENTS, traceback: RunTracebackUseCase, verify: VerifyTracebackUseCase, enhance: EnhanceAnswerUseCase,
    failpoints: FAILPOINTS, clock: CLOCK, settings: CORE_SETTINGS,
  };
  constructor(private readonly deps: ProcessFeedbackEventDeps) {}

  async execute(cmd: ProcessFeedbackEventCommand): Promise<ProcessFeedbackEventResult> {
    const { feedback, failpoints } = this.deps;
    const id = cmd.feedbackId;
    const before = await feedback.get(id);
    if (!before) throw new PermanentError(`feedback event ${id} does not exist`);
    const skip = (status: FeedbackStatus, step: PipelineStep | null): ProcessFeedbackEventResult =>
      ({ feedbackId: id, status, skipped: true, resumedAfter: step, trace: null, verification: null, enhanced: false });
    if (isTerminal(before.status)) return skip(before.status, before.step);
    const signal = cmd.signal;
    signal?.throwIfAborted();
    const ev = await feedback.transition(id, { from: PENDING_STATUSES, to: 'TRACING', incrementAttempts: true });
    if (!ev) {
      // Another writer finished or failed it between the read and the transition.
      const now = (await feedback.get(id))!;
      return skip(now.status, now.step);
    }
    const resumedAfter = ev.step;
    let step = ev.step;

    let trace: TracebackOutcome | null = null;
    if (step === null) {
      trace = await this.deps.traceback.execute({ feedbackId: id, onProgress: cmd.onProgress, signal });
      step = await this.complete(id, 'traced', cmd);
    }
    let verification: Verification | null = null;
    signal?.throwIfAborted();
    if (step === 'traced') {
      verification = (await this.deps.verify.execute({ feedbackId: id })).verification;
      step = await this.complete(id, 'verified', cmd);
    }
    let enhanced = false;
    signal?.throwIfAborted();
    if (step === 'verified') {
      const current = (await feedback.get(id))!;
      if (current.correctAnswer) enhanced = (await this.deps.enhance.execute({ feedbackId: id, actor: this.deps.settings.workerActor, authority: 'report' })).enhancement.state === 'ACTIVE';
      step = await this.complete(id, 'enhanced', cmd);
    }
    failpoints.hit('pipeline.before-finish');
    signal?.throwIfAborted();

    const done = (await feedback.get(id))!;
    const outcome: FeedbackStatus = done.trace?.outcome ?? trace?.status ?? 'TRACED';
    const finished = await feedback.transition(id, { from: ['TRACING'], to: outcome, set: { tracedAt: this.deps.clock.now(), failureReason: null } });
    return {
      feedbackId: id, status: finished?.status ?? (await feedback.get(id))!.status, skipped: false, resumedAfter, trace,
      verification: verification ?? done.verification, enhanced,
    };
  }

  private async complete(id: string, step: PipelineStep, cmd: ProcessFeedbackEventCommand): Promise<PipelineStep> {
    await this.deps.feedback.update(id, { step });
    this.deps.failpoints.hit(`pipeline.after-${step}`);
    await cmd.onProgress?.(step);
    return step;
  }
}
