import { applyRememberedDecisions, applyReporterTrust, type Decision, type PolicyVerdict } from '@forensics/algorithms';
import type { DomainEventPublisher } from '../../../ports/domain-events.port';
import type { DocumentRepository, FeedbackEventRepository, JsonObject, ReporterActivityRepository, ReviewRepository } from '../../../ports/repositories';
import { REPORTER_ACTIVITY } from '../../../ports/repositories/reporter-activity.port';
import type { Clock } from '../../../ports/runtime.port';
import type { CoreSettings } from '../../../settings';
import { REVIEW } from '../../../ports/repositories/review.port';
import type { NewQuarantine, QuarantineRepository, QuarantineRow } from '../../../ports/repositories';
import type { Failpoints } from '../../../ports/runtime.port';
import { CLOCK, CORE_SETTINGS, DOCUMENTS, DOMAIN_EVENTS, FAILPOINTS, FEEDBACK_EVENTS, QUARANTINES, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';
import { syncRecordToStore } from './store-sync';
import { decidedData } from '../approve-quarantine/approve-quarantine.use-case';

/** A new quarantine record, with the acting principal recorded as its creator. */
export type QuarantineTextCommand = Omit<NewQuarantine, 'createdBy'> & { actor: string };

export interface QuarantineTextDeps {
  quarantines: QuarantineRepository; store: VectorStore; failpoints: Failpoints; events: DomainEventPublisher;
  review: ReviewRepository; documents: DocumentRepository; feedback: FeedbackEventRepository;
  activity: ReporterActivityRepository; settings: CoreSettings; clock: Clock;
}

/** Same reports read per decision for corroboration (the first ones; more distinct reporters than the policy needs change nothing). */
const SAME_REPORTS_READ = 100;
const DAY_MS = 24 * 3600_000;

/**
 * Takes a text out of serving (or sends it to review), in an order that loses nothing if the
 * process dies between steps:
 *  1. Postgres, one transaction: quarantine record (storeSynced=false) + document status + audit;
 *  2. the vector store flag (idempotent);
 *  3. storeSynced=true.
 * A crash after 1 leaves an unsynced record that SyncQuarantinesUseCase (run by every retried
 * traceback and at worker start) completes; a partial unique index allows one active record per
 * text, so a retry never quarantines a text twice.
 */
export class QuarantineTextUseCase {
  static readonly inject: InjectMap<QuarantineTextDeps> = {
    quarantines: QUARANTINES, store: VECTOR_STORE, failpoints: FAILPOINTS, events: DOMAIN_EVENTS, review: REVIEW, documents: DOCUMENTS, feedback: FEEDBACK_EVENTS,
    activity: REPORTER_ACTIVITY, settings: CORE_SETTINGS, clock: CLOCK,
  };
  constructor(private readonly deps: QuarantineTextDeps) {}

  /**
   * `created`: a new record; `promoted`: no new record, but this decision took the text out of serving
   * by approving a review held for a low-trust report (see `promoteHeld`) — the caller counts it as
   * this decision's quarantine.
   */
  async execute(cmd: QuarantineTextCommand): Promise<{ record: QuarantineRow; created: boolean; promoted?: boolean }> {
    const { actor, ...asked } = cmd;
    const record = await this.withRememberedDecisions(await this.withReporterTrust(asked));
    const res = await this.deps.quarantines.create({ ...record, createdBy: actor });
    if (!res.created && (record.state ?? 'QUARANTINED') === 'QUARANTINED') return this.promoteHeld(res, record, actor);
    this.deps.failpoints.hit('quarantine.after-db');
    // Webhooks (issue 14), once the record is committed (before the store step, so a store failure — retried
    // with created=false — cannot lose the event): QUARANTINED → quarantine.created, NEEDS_REVIEW → review.needed.
    if (res.created) {
      const r = res.record;
      await this.deps.events.publish({
        type: r.state === 'NEEDS_REVIEW' ? 'review.needed' : 'quarantine.created',
        data: { quarantineId: r.id, documentId: r.documentId, feedbackId: r.feedbackId, collection: r.collection, state: r.state, policy: r.policy, servedDuringReview: r.servedDuringReview },
      });
    }
    if (!res.record.storeSynced) await syncRecordToStore(this.deps, res.record);
    return res;
  }

  /**
   * Reporter trust, corroboration and caps (issue 13, item 1) as inputs of the decision policy: an
   * automatic QUARANTINE of a report below the configured trust goes to NEEDS_REVIEW unless other,
   * independent reporters (distinct addresses or keys) made the same report (folded query and wrong
   * answer); the per-event and per-reporter caps hold the rest for review. The record's policy
   * inputs say which (`trust`, `caps`). Only records of a feedback event with a policy decision.
   */
  private async withReporterTrust(rec: Omit<NewQuarantine, 'createdBy'>): Promise<Omit<NewQuarantine, 'createdBy'>> {
    const p = rec.evidence?.policy;
    if (!rec.feedbackId || !p) return rec;
    const ev = await this.deps.feedback.get(rec.feedbackId);
    if (!ev) return rec;
    const source = ev.reporterSource ?? null;
    const [same, ofEvent, ofReporter] = await Promise.all([
      ev.reportKey ? this.deps.activity.sameReport(ev.collection, ev.reportKey, SAME_REPORTS_READ) : Promise.resolve([]),
      this.deps.quarantines.list({ feedbackId: ev.id }),
      source ? this.deps.activity.autoQuarantinesBySource(source, new Date(this.deps.clock.now().getTime() - DAY_MS)) : Promise.resolve(null),
    ]);
    const decision = policyDecision(rec);
    const verdict: PolicyVerdict = { decision, withhold: p.withhold, reason: p.reason, inputs: p.inputs };
    const out = applyReporterTrust(verdict, {
      trust: ev.trust ?? 'anonymous', source,
      sameReports: same.filter((r) => r.eventId !== ev.id),
      eventAutoQuarantines: ofEvent.filter((r) => r.documentId !== rec.documentId && r.evidence?.policy?.decision === 'QUARANTINE').length,
      reporterAutoQuarantinesDay: ofReporter,
    }, this.deps.settings.trust);
    const state = out.decision === 'QUARANTINE' ? 'QUARANTINED' : 'NEEDS_REVIEW';
    return {
      ...rec, state, servedDuringReview: state === 'NEEDS_REVIEW' ? !out.withhold : rec.servedDuringReview,
      reason: out.decision === decision && out.withhold === p.withhold ? rec.reason : `${rec.reason}; ${out.reason}`,
      evidence: { ...rec.evidence, policy: { ...p, decision: out.decision, withhold: out.withhold, reason: out.reason, inputs: out.inputs as JsonObject } },
    };
  }

  /**
   * The text already has an active record. When that record is a review held only for trust (a
   * low-trust report, `inputs.trust.held`) and this decision quarantines, the held review is approved
   * by the worker: the text leaves serving. Two cases, and the note says which (issue 33: a token
   * report held for review looked as if it had quarantined on its own when a key report with another
   * wrong answer did it): this report corroborates the held one (same folded question and wrong
   * answer, another reporter), or it is a report trusted enough to quarantine on its own — then the
   * decision is this report's, the held report only happened to hold the text's one active record.
   * Either way this decision is reported as the quarantine (`promoted`). A review a reviewer has
   * claimed is left to them; any other active record is returned unchanged.
   */
  private async promoteHeld(res: { record: QuarantineRow; created: boolean }, by: Omit<NewQuarantine, 'createdBy'>, actor: string): Promise<{ record: QuarantineRow; created: boolean; promoted?: boolean }> {
    const r = res.record;
    const held = (r.evidence?.policy?.inputs as { trust?: { held?: unknown } } | undefined)?.trust?.held === true;
    if (r.state !== 'NEEDS_REVIEW' || !held) return res;
    const [heldEvent, byEvent] = await Promise.all([
      r.feedbackId ? this.deps.feedback.get(r.feedbackId) : Promise.resolve(null),
      by.feedbackId ? this.deps.feedback.get(by.feedbackId) : Promise.resolve(null),
    ]);
    const corroborates = !!heldEvent?.reportKey && heldEvent.reportKey === byEvent?.reportKey;
    const d = await this.deps.review.decide(r.id, 'approve', {
      actor, claimant: actor, override: false, remember: null,
      // The note (audit entry and review history) explains: which report decided, its trust, and whether it corroborates the held one.
      note: corroborates
        ? `held for review as a low-trust report; corroborated and quarantined by feedback ${by.feedbackId ?? '(none)'} (the same question and wrong answer): ${by.evidence.policy.reason}${trustSummary(by.evidence.policy.inputs)}`
        : `held for review as a low-trust report, which did not take it out of serving; quarantined on its own verdict by another report, feedback ${by.feedbackId ?? '(none)'}`
          + ` (wrong answer "${byEvent?.wrongAnswer ?? '?'}"): ${by.evidence.policy.reason}${trustSummary(by.evidence.policy.inputs)}`,
    });
    if (d.outcome !== 'changed') return res;
    const record = (await this.deps.quarantines.get(r.id))!;
    // Webhooks: as a reviewer's approval (committed first, then the store).
    await this.deps.events.publish({ type: 'review.decided', data: decidedData(record, 'approve', actor) });
    if (!record.storeSynced) await syncRecordToStore(this.deps, record);
    return { record: { ...record, storeSynced: true }, created: false, promoted: true };
  }

  /**
   * Remembered decisions (issue 11, item 3) as an input of the decision policy: when a reviewer
   * restored this text (same collection, same hash) for the same report (normalised query and wrong
   * answer), the judge's YES — typically a cached verdict — does not quarantine it again: it goes
   * to NEEDS_REVIEW, kept in serving, and the record's policy inputs name the earlier decisions.
   */
  private async withRememberedDecisions(rec: Omit<NewQuarantine, 'createdBy'>): Promise<Omit<NewQuarantine, 'createdBy'>> {
    if (!rec.feedbackId) return rec;
    const [doc] = await this.deps.documents.get([rec.documentId]);
    if (!doc) return rec;
    const memory = await this.deps.review.remembered(rec.collection, doc.textHash);
    if (!memory.length) return rec;
    const ev = await this.deps.feedback.get(rec.feedbackId);
    if (!ev) return rec;
    const p = rec.evidence.policy;
    const decision = policyDecision(rec);
    const out = applyRememberedDecisions({ decision, withhold: p.withhold, reason: p.reason, inputs: p.inputs }, ev, memory.map((m) => ({ ...m, at: m.at.toISOString() })));
    if (out === undefined || out.inputs === p.inputs) return rec;
    const state = out.decision === 'QUARANTINE' ? 'QUARANTINED' : 'NEEDS_REVIEW';
    return {
      ...rec, state, servedDuringReview: state === 'NEEDS_REVIEW' ? !out.withhold : rec.servedDuringReview,
      reason: state === rec.state ? rec.reason : `${rec.reason}; ${out.reason}`,
      evidence: { ...rec.evidence, policy: { ...p, decision: out.decision, withhold: out.withhold, reason: out.reason, inputs: out.inputs } },
    };
  }
}

/** The policy decision a record carries (older records without one: from the state asked for). */
function policyDecision(rec: Omit<NewQuarantine, 'createdBy'>): Decision {
  const d = rec.evidence.policy.decision;
  return d === 'QUARANTINE' || d === 'NEEDS_REVIEW' || d === 'KEEP' ? d : (rec.state ?? 'QUARANTINED') === 'QUARANTINED' ? 'QUARANTINE' : 'NEEDS_REVIEW';
}

/** ` (trust identified; corroborating events a, b)` from a record's policy inputs. */
function trustSummary(inputs: JsonObject): string {
  const t = inputs.trust as { level?: string; corroboratingEventIds?: string[] } | undefined;
  if (!t) return '';
  const ids = t.corroboratingEventIds ?? [];
  return ` (trust ${t.level ?? '?'}${ids.length ? `; corroborating events ${ids.join(', ')}` : ''})`;
}
