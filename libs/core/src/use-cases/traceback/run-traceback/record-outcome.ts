import { summarizeTrace, validateDecisionPolicy, type DecisionPolicyParams, type TraceState } from '@forensics/algorithms';
import type { Judge } from '../../../ports/judge.port';
import type { AuditLogRepository, FeedbackEventRepository } from '../../../ports/repositories';
import type { SyncQuarantinesUseCase } from '../../quarantine/sync-quarantines/sync-quarantines.use-case';
import type { Decisions } from './decisions';
import type { TopUpResult } from './top-up';
import type { TraceRun } from './trace-run';

export interface TracebackOutcome {
  feedbackId: string;
  status: 'TRACED' | 'BOUNDED';
  poisoned: string[];
  benign: string[];
  undetermined: string[];
  quarantined: string[];
  /** Texts sent to review by the decision policy (NEEDS_REVIEW records). */
  review: string[];
  judgeCalls: number;
  cachedVerdicts: number;
  rounds: number;
  traceStatus: TraceState['status'];
  boundReason?: string;
  /** The consensus check marked the report a suspected false flag: nothing was auto-quarantined. */
  suspectedFalseFlag?: boolean;
}

export interface RecordOutcomeDeps {
  feedback: FeedbackEventRepository;
  audit: AuditLogRepository;
  syncQuarantines: SyncQuarantinesUseCase;
  judge: Judge;
  policy: Partial<DecisionPolicyParams>;
  /** Who the audit entry names (WORKER_ACTOR). */
  actor: string;
}

/**
 * The traceback's last step, in this order for crash safety: any quarantine of this event left half-done by a crash
 * (Postgres written, the store not) is completed; then the outcome is recorded on the event's trace (until it is, a
 * rerun replays the persisted verdicts and reaches the same decisions); then the audit entry.
 */
export class RecordOutcome {
  constructor(private readonly deps: RecordOutcomeDeps) {}

  async recordOutcome(run: TraceRun, decisions: Decisions, topUp: TopUpResult, onProgress?: (step: string, detail?: Record<string, unknown>) => Promise<void> | void): Promise<TracebackOutcome> {
    const { feedback, judge } = this.deps;
    const { ev, state } = run;
    run.signal?.throwIfAborted();
    await this.deps.syncQuarantines.execute({ feedbackId: ev.id });
    await onProgress?.('quarantined', { count: state.poisoned.length });
    const status: 'TRACED' | 'BOUNDED' = state.status === 'BOUNDED' ? 'BOUNDED' : 'TRACED';
    const { consensus, suspected } = decisions.reading;
    // The last safe point of the trace: its outcome and its audit entry are written together.
    run.signal?.throwIfAborted();
    await feedback.update(ev.id, {
      trace: {
        state: summarizeTrace(state), rounds: state.rounds, boundReason: state.boundReason ?? null, outcome: status,
        judge: { kind: judge.kind, model: judge.model, promptVersion: judge.promptVersion }, lastRun: { judgeCalls: run.judgeCalls, cachedVerdicts: run.cachedVerdicts },
        policy: validateDecisionPolicy(this.deps.policy).name, evidenceError: run.evidenceError,
        consensus: consensus as unknown as Record<string, unknown> | null, suspectedFalseFlag: suspected,
        ...(topUp.rounds ? { topUp: { rounds: topUp.rounds, judged: topUp.judged } } : {}),
      },
    });
    await this.deps.audit.append({ actor: this.deps.actor, action: `traceback.${status.toLowerCase()}`, entityType: 'FeedbackEvent', entityId: ev.id, details: { poisoned: state.poisoned.length, benign: state.benign.length, undetermined: state.undetermined.length, boundReason: state.boundReason ?? null } });
    return {
      feedbackId: ev.id, status, poisoned: [...state.poisoned, ...topUp.poisoned], benign: [...state.benign, ...topUp.benign], undetermined: [...state.undetermined, ...topUp.undetermined],
      quarantined: decisions.quarantined, review: decisions.review, judgeCalls: run.judgeCalls, cachedVerdicts: run.cachedVerdicts, rounds: state.round, traceStatus: state.status, boundReason: state.boundReason,
      suspectedFalseFlag: suspected,
    };
  }
}
