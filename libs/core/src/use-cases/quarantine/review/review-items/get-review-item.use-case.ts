import { echoInput, NotFoundError } from '../../../../domain/errors';
import type { CandidateEvidence } from '../../../../domain/evidence-record';
import { reporterKindOf } from '../../../../domain/reporter-kind';
import {
  REVIEW, type AnswerRepository, type DocumentRepository, type FeedbackEventRepository, type QuarantineRepository, type ReviewRepository,
  type VerdictEvidence, type VerdictRepository,
} from '../../../../ports/repositories';
import { ANSWERS, DOCUMENTS, FEEDBACK_EVENTS, QUARANTINES, VECTOR_STORE, VERDICTS } from '../../../../ports/tokens';
import type { VectorStore } from '../../../../ports/vector-store.port';
import type { InjectMap } from '../../../../use-case';
import { itemSummary } from './review-view';
import { locateClaim } from './locate-claim';
import type { DocumentRow } from '../../../../ports/repositories';

/** How the app names a text: its own id and metadata (null when it gave none, or the text is unknown to Postgres). */
export function appNames(d: Pick<DocumentRow, 'externalId' | 'metadata'> | undefined): { externalId: string | null; metadata: DocumentRow['metadata'] } {
  return { externalId: d?.externalId ?? null, metadata: d?.metadata ?? null };
}

export interface GetReviewItemDeps {
  review: ReviewRepository; quarantines: QuarantineRepository; documents: DocumentRepository; feedback: FeedbackEventRepository;
  verdicts: VerdictRepository; answers: AnswerRepository; store: VectorStore;
}

type Signal = { raw: Record<string, unknown> | null; suspicion: number | null; skipped?: string };

/** One evidence signal as the page draws it: its raw values, its suspicion in [0,1], or why it was skipped. */
function signal(s: CandidateEvidence['bird'] | CandidateEvidence['grada'] | CandidateEvidence['progrank'] | undefined): Signal | null {
  if (!s) return null;
  if ('skipped' in s) { const { skipped, ...raw } = s; return { raw: Object.keys(raw).length ? raw : null, suspicion: null, skipped }; }
  const { suspicion, ...raw } = s;
  return { raw, suspicion };
}

function evidenceOf(e: VerdictEvidence | null | undefined) {
  if (!e) return { bird: null, grada: null, progrank: null, combined: null, error: null };
  if ('error' in e) return { bird: null, grada: null, progrank: null, combined: null, error: e.error };
  return { bird: signal(e.bird), grada: signal(e.grada), progrank: signal(e.progrank), combined: e.combined, error: null };
}

const NEAR_DUPLICATES = 5;

/**
 * Everything a reviewer needs to decide one item: the full text, the report (with the answer the
 * user was served, from the answer log), the judge's verdict and full reply, the retriever-side
 * evidence of this text and of every candidate of the event, the policy and its inputs, the other
 * items of the event, near-duplicates in the collection (vector similarity), the audit history and
 * the remembered decisions for this text.
 */
export class GetReviewItemUseCase {
  static readonly inject: InjectMap<GetReviewItemDeps> = {
    review: REVIEW, quarantines: QUARANTINES, documents: DOCUMENTS, feedback: FEEDBACK_EVENTS, verdicts: VERDICTS, answers: ANSWERS, store: VECTOR_STORE,
  };
  constructor(private readonly deps: GetReviewItemDeps) {}

  async execute(cmd: { id: string }) {
    const { review, quarantines, documents, feedback, verdicts, answers } = this.deps;
    const rec = await quarantines.get(cmd.id);
    const [item] = rec ? await review.summaries([rec.id]) : [];
    if (!rec || !item) throw new NotFoundError(`review item ${echoInput(cmd.id)} does not exist`);
    const [doc] = await documents.get([rec.documentId]);
    const ev = rec.feedbackId ? await feedback.get(rec.feedbackId) : null;
    const answer = ev?.answerId ? await answers.get(ev.answerId) : null;
    const eventVerdicts = ev ? await verdicts.list(ev.id) : [];
    const v = eventVerdicts.find((x) => x.documentId === rec.documentId) ?? null;
    const siblings = ev ? (await review.search({ feedbackId: ev.id }, { sort: 'risk', limit: 200 })).rows.filter((r) => r.id !== rec.id) : [];
    const quarantinedDocs = new Set([...siblings, item].filter((s) => s.state === 'QUARANTINED' || s.state === 'NEEDS_REVIEW').map((s) => s.documentId));
    const [history, remembered, nearDuplicates] = await Promise.all([
      review.auditFor([rec.id, rec.documentId]),
      doc ? review.remembered(rec.collection, doc.textHash) : Promise.resolve([]),
      this.nearDuplicates(rec.collection, rec.documentId).catch(() => []),
    ]);
    const ownEvidence = v?.evidence ?? rec.evidence.retrieverEvidence;
    const [version] = rec.redaction ? await documents.get([rec.redaction.documentId]) : [];
    // The event's other candidates, named as the app names them (the evidence bars), and read for the claim of a quoted answer.
    const candidateDocs = new Map((await documents.get(eventVerdicts.map((c) => c.documentId).filter((d) => d !== rec.documentId))).map((d) => [d.id, d]));
    if (doc) candidateDocs.set(doc.id, doc);
    const signals = v ? v.signals : rec.evidence.judge.signals ?? null;
    return {
      item: itemSummary(item),
      text: doc?.text ?? null,
      // Issue 35: the redaction (served version while active) — the original text above stays as it was until purged.
      redaction: rec.redaction ? { ...rec.redaction, text: version?.text ?? null, served: rec.redaction.active && rec.state === 'QUARANTINED' } : null,
      feedback: ev ? {
        id: ev.id, query: ev.query, wrongAnswer: ev.wrongAnswer, correctAnswer: ev.correctAnswer, servedAnswer: answer?.answer ?? null,
        answerId: ev.answerId, reporter: ev.reporter, reporterKind: reporterKindOf(ev), createdAt: ev.createdAt.toISOString(), status: ev.status, verification: ev.verification,
        // Where the wrong answer is in this text (a widget report's is the whole served sentence): what the page highlights.
        claim: doc ? locateClaim(ev.query, ev.wrongAnswer, doc.text, [...candidateDocs.values()].filter((d) => d.id !== doc.id).map((d) => d.text)) : null,
      } : null,
      verdict: v ? {
        label: v.label, judgeKind: v.judgeKind, judgeModel: v.judgeModel, promptVersion: v.promptVersion, reply: v.reply, round: v.round,
        retrievalRank: v.retrievalRank, retrievalScore: v.retrievalScore, latencyMs: v.latencyMs, cached: v.cached, spans: v.spans ?? [], signals,
      } : {
        label: rec.evidence.judge.label ?? null, judgeKind: rec.evidence.judge.kind, judgeModel: rec.evidence.judge.model, promptVersion: rec.evidence.judge.promptVersion,
        reply: rec.evidence.judge.reply ?? null, round: null, retrievalRank: rec.evidence.retrieval?.rank ?? null, retrievalScore: rec.evidence.retrieval?.score ?? null, latencyMs: null, cached: null,
        spans: rec.evidence.judge.spans ?? [], signals,
      },
      evidence: {
        thisText: evidenceOf(ownEvidence),
        candidates: eventVerdicts.map((c) => ({ documentId: c.documentId, ...appNames(candidateDocs.get(c.documentId)), label: c.label, quarantined: quarantinedDocs.has(c.documentId), ...evidenceOf(c.evidence) })),
        policy: { name: rec.evidence.policy.name, decision: rec.evidence.policy.decision, withhold: rec.evidence.policy.withhold, reason: rec.evidence.policy.reason, inputs: rec.evidence.policy.inputs },
      },
      siblings: siblings.map(itemSummary),
      nearDuplicates,
      history: history.map((h) => ({ at: h.at.toISOString(), actor: h.actor, action: h.action, entityType: h.entityType, entityId: h.entityId, details: h.details })),
      earlierDecisions: remembered.map((m) => ({ at: m.at.toISOString(), actor: m.actor, action: m.action, note: m.note, query: m.query, wrongAnswer: m.wrongAnswer, recordId: m.recordId })),
    };
  }

  /** The text's own vector → the top 6 of its collection (quarantined ones included) minus itself. A purged text has no vector: none. */
  private async nearDuplicates(collection: string, documentId: string) {
    const { store, documents } = this.deps;
    const [self] = await store.fetch(collection, [documentId]);
    if (!self) return [];
    const hits = (await store.search(collection, { vector: self.vector, k: NEAR_DUPLICATES + 1, includeQuarantined: true, excludeIds: [documentId] })).slice(0, NEAR_DUPLICATES);
    const known = new Map((await documents.get(hits.map((h) => h.id))).map((d) => [d.id, d]));
    const status = new Map([...known.values()].map((d) => [d.id, d.status]));
    return hits.map((h) => ({
      documentId: h.id, ...appNames(known.get(h.id)), textPreview: h.text.slice(0, 240), similarity: h.score,
      // The text's status: null = served (ACTIVE), QUARANTINED = out of serving, or unknown to Postgres.
      state: status.has(h.id) ? (status.get(h.id) === 'ACTIVE' ? null : status.get(h.id)!) : null,
    }));
  }
}
