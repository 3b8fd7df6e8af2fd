import { reportKey } from '@forensics/algorithms';
import { ConflictError, echoInput, NotFoundError } from '../../../../domain/errors';
import type { DecisionAction, QuarantineRepository, QuarantineRow, ReviewItemRow, ReviewRepository } from '../../../../ports/repositories';
import type { VectorStore } from '../../../../ports/vector-store.port';
import { syncRecordToStore } from '../../quarantine-text/store-sync';

/** Who decides: the audit actor, the name claims are held under, and whether they may override someone else's claim (admins). */
export interface Decider { actor: string; claimant?: string; override?: boolean }

export interface DecisionDeps { review: ReviewRepository; quarantines: QuarantineRepository; store: VectorStore }

export interface AppliedDecision { changed: boolean; item: ReviewItemRow; record: QuarantineRow }

const VERB: Record<DecisionAction, string> = { approve: 'approved', restore: 'restored', purge: 'purged' };

/**
 * One reviewer decision, crash-safe in the order of every quarantine change: Postgres first (one
 * transaction: state, decision, claim check, document status, audit, remembered decision), then the
 * vector store (flag set / cleared, or the point deleted for a purge), then marked synced. A crash
 * in between leaves an unsynced record that SyncQuarantinesUseCase completes. The decision is
 * remembered for the text and the report that led to it (normalised query and wrong answer).
 */
export async function applyDecision(deps: DecisionDeps, id: string, action: DecisionAction, who: Decider & { note?: string; reasons?: readonly string[]; requestId?: string }): Promise<AppliedDecision> {
  const [before] = await deps.review.summaries([id]);
  if (!before) throw new NotFoundError(`quarantine record ${echoInput(id)} does not exist`);
  const remember = before.query !== null && before.wrongAnswer !== null
    ? { textHash: before.textHash, query: before.query, wrongAnswer: before.wrongAnswer, queryKey: reportKey(before.query), wrongAnswerKey: reportKey(before.wrongAnswer) }
    : null;
  const res = await deps.review.decide(id, action, {
    actor: who.actor, claimant: who.claimant ?? who.actor, override: !!who.override, note: who.note, reasons: who.reasons, requestId: who.requestId, remember,
  });
  if (res.outcome === 'missing') throw new NotFoundError(`quarantine record ${echoInput(id)} does not exist`);
  if (res.outcome === 'claimed') {
    throw new ConflictError(`item ${id} is claimed by ${res.claim.by} until ${res.claim.until.toISOString()}; only they (or an admin) can decide it now`, { claim: { by: res.claim.by, until: res.claim.until.toISOString() } });
  }
  if (res.outcome === 'conflict') throw new ConflictError(`quarantine record ${id} is ${res.row.state}; it cannot be ${VERB[action]}`);
  const record = (await deps.quarantines.get(id))!;
  if (!record.storeSynced) await syncRecordToStore(deps, record);
  const [item] = await deps.review.summaries([id]);
  return { changed: res.outcome === 'changed', item, record: { ...record, storeSynced: true } };
}
