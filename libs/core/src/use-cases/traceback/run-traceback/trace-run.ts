import type { TraceState } from '@forensics/algorithms';
import type { CandidateEvidence } from '../../../domain/evidence-record';
import type { CollectionRow, DocumentRow, FeedbackRow, VerdictRow } from '../../../ports/repositories';

/**
 * What one traceback run carries from step to step: the event it traces, the pure trace state over the rounds
 * (Cp, Cb, the undetermined, the bounds: @forensics/algorithms), and what the rounds learnt that the later steps read
 * (ranks, the served texts, the registry rows, each judged text's verdict and evidence). One object, passed to every
 * step, instead of variables captured across them. Nothing here is the source of truth: the rows are.
 */
export interface TraceRun {
  readonly ev: FeedbackRow;
  readonly collection: CollectionRow;
  readonly queryVector: ArrayLike<number>;
  /**
   * Retrieval proxies of benign-text enhancements are ours, not knowledge-base texts: never judged, never registered.
   * Every enhancement's proxy is excluded (a deleted one's may linger in the store); a hit whose payload marks it a
   * proxy is dropped too (one created after this list was read).
   */
  readonly proxyIds: readonly string[];
  /** The verdicts an earlier run of this event persisted, by document id: a rerun replays them, judging nothing twice. */
  readonly prior: ReadonlyMap<string, VerdictRow>;
  /** Aborted: stop at the next safe point (RunTracebackCommand.signal); judge calls in flight are aborted too. */
  readonly signal?: AbortSignal;
  state: TraceState;
  /** Texts sent to the judge in this run, and verdicts taken from the shared cache instead. */
  judgeCalls: number;
  cachedVerdicts: number;
  /** Each candidate's first retrieval rank and score (stored on its verdict, cited in its decision). */
  readonly ranks: Map<string, { rank: number; score: number }>;
  /**
   * The first batch judged is what the user was served (round 0, or the first top K): a served answer was quoted from
   * it, and every later judgment of the event reads the answer against it (see served-context.ts).
   */
  servedContext?: string[];
  /** The candidates' registry rows read so far (judged, or fetched for the decisions), by document id. */
  readonly docs: Map<string, DocumentRow>;
  /** Retriever-side evidence of the judged texts, by document id, and the first error that kept some from being computed. */
  readonly evidence: Record<string, CandidateEvidence>;
  evidenceError: string | null;
  /** Each judged text's verdict row as stored once its evidence was attached: what its decision reads. */
  readonly verdictRows: Map<string, VerdictRow>;
}

export function newTraceRun(init: Pick<TraceRun, 'ev' | 'collection' | 'queryVector' | 'proxyIds' | 'prior' | 'state'> & { signal?: AbortSignal }): TraceRun {
  return { ...init, judgeCalls: 0, cachedVerdicts: 0, ranks: new Map(), docs: new Map(), evidence: {}, evidenceError: null, verdictRows: new Map() };
}
