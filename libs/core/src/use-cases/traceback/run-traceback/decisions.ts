import {
  capOrder, decide, loneClearYes, plantedSiblings, restatesQuestion, validateDecisionPolicy,
  type ConsensusResult, type DecisionOutcome, type DecisionPolicyParams, type Label, type SiblingMatch,
} from '@forensics/algorithms';
import type { DocumentRepository, DocumentRow } from '../../../ports/repositories';
import type { Judge } from '../../../ports/judge.port';
import type { QuarantineTextUseCase } from '../../quarantine/quarantine-text/quarantine-text.use-case';
import type { ConsensusReading } from './consensus-of';
import type { TraceRun } from './trace-run';

export interface DecisionsDeps {
  documents: DocumentRepository;
  quarantineText: QuarantineTextUseCase;
  judge: Judge;
  policy: Partial<DecisionPolicyParams>;
  /** Who the quarantine records name (WORKER_ACTOR). */
  actor: string;
}

/**
 * The decision policy over one report's judged texts (decision-policy.ts), applied through QuarantineTextUseCase
 * (Postgres record, then the vector store; reporter trust and caps there). What is fixed for the report before its
 * first decision (the consensus reading, whether it has a clear YES or a lone one, the seeds of planted siblings, the
 * vetted cutoff) is read once by `open`; the texts decided and the siblings found build up as texts are decided (the
 * trace's, then the top-up's). Records which texts this event quarantined and which it sent to review.
 */
export class Decisions {
  readonly quarantined: string[] = [];
  readonly review: string[] = [];
  private readonly siblings = new Map<string, SiblingMatch>();
  /** The NO texts seen so far: the pool a planted sibling is told apart in. */
  private readonly noIds: string[] = [];

  private constructor(
    private readonly deps: DecisionsDeps, private readonly run: TraceRun, readonly reading: ConsensusReading,
    private readonly report: { eventHasClearYes: boolean; eventLoneYes: boolean; siblingSeeds: string[]; vettedBefore: number | null },
  ) {}

  /** The report's facts, read after the trace's verdicts and evidence are on the run, then the trace's NO texts' siblings. */
  static async open(deps: DecisionsDeps, run: TraceRun, reading: ConsensusReading): Promise<Decisions> {
    const signals = (id: string) => run.verdictRows.get(id)?.signals;
    // A band YES is withheld only in an event with a clear YES (bandWithhold, issue 33).
    const clearYes = run.state.poisoned.filter((id) => signals(id)?.confidence !== 'band');
    // Planted siblings (siblingWithhold, issue 33): in a report with two or more clear YES the consensus check did not
    // protect, a NO text reworded from them (closer to them than to the report's other NO texts) is withheld for
    // review. Only for a judge that scores its verdicts (the offline judge, whose paraphrase misses this compensates
    // and with which it was measured); an LLM reads a reworded claim itself.
    const seedIds = validateDecisionPolicy(deps.policy).siblingWithhold === 'on'
      ? clearYes.filter((id) => !reading.protectedIds.has(id) && typeof signals(id)?.score === 'number') : [];
    const siblingSeeds = [...(await textsOf(deps.documents, run, seedIds)).values()];
    // The collection's vetted baseline (issue 33, decision 0320): texts registered before its cutoff never leave serving by a decision.
    const vettedBefore = run.collection.vettedBefore ? new Date(run.collection.vettedBefore).getTime() : null;
    // A lone clear YES that does not restate the question does not make the report an attack (loneYes, issue 33).
    const report = { eventHasClearYes: clearYes.length > 0, eventLoneYes: loneClearYes(clearYes.map((id) => coverageOf(run, id))), siblingSeeds, vettedBefore };
    const decisions = new Decisions(deps, run, reading, report);
    await decisions.findSiblings(run.state.benign);
    return decisions;
  }

  /**
   * Decides the trace's texts: the YES ones most confident first (capOrder: they meet the per-event cap in that order,
   * not in retrieval order), then the NO ones, then the undetermined. True when a NO text left serving.
   */
  async decideTrace(): Promise<boolean> {
    const { state } = this.run;
    const scoreOf = (id: string) => { const s = this.run.verdictRows.get(id)?.signals?.score; return typeof s === 'number' ? s : null; };
    let benignWithheld = false;
    for (const id of capOrder(state.poisoned, scoreOf)) await this.decideText(id);
    for (const id of state.benign) if (await this.decideText(id)) benignWithheld = true;
    for (const id of state.undetermined) await this.decideText(id);
    return benignWithheld;
  }

  /** Adds NO texts to the sibling pool and notes those reworded from the report's clear YES. */
  async findSiblings(ids: readonly string[]): Promise<void> {
    this.noIds.push(...ids);
    const seeds = this.report.siblingSeeds;
    if (!seeds.length || !ids.length) return;
    const wanted = new Set(ids);
    const { ev } = this.run;
    for (const [id, m] of plantedSiblings(ev.query, ev.wrongAnswer, seeds, await textsOf(this.deps.documents, this.run, this.noIds))) if (wanted.has(id)) this.siblings.set(id, m);
  }

  /** Decides one judged text and applies it; true when the text left serving (quarantined or withheld). */
  async decideText(id: string): Promise<boolean> {
    // Between two texts' decisions, never inside one (QuarantineText writes Postgres, then the store).
    this.run.signal?.throwIfAborted();
    const outcome = await this.outcomeOf(id);
    return outcome ? this.apply(id, outcome) : false;
  }

  /** The policy's outcome for one text, with the consensus reading on it; null for KEEP. */
  private async outcomeOf(id: string): Promise<DecisionOutcome | null> {
    const { consensus, protectedIds } = this.reading;
    const v = this.run.verdictRows.get(id);
    const label = (this.run.state.verdicts[id] ?? v?.label) as Label;
    const e = this.run.evidence[id];
    const confidence = v?.signals?.confidence === 'band' ? 'band' as const : undefined;
    const sibling = label === 'NO' ? this.siblings.get(id) : undefined;
    const { eventHasClearYes, eventLoneYes } = this.report;
    let outcome = decide({
      label, ...(confidence ? { confidence } : {}), eventHasClearYes, eventLoneYes, restatesQuestion: restatesQuestion(coverageOf(this.run, id)),
      ...(sibling ? { plantedSibling: sibling } : {}), ...((await this.isVetted(id)) ? { vetted: true } : {}),
      evidence: e ? { available: e.combined.available, suspicion: e.combined.suspicion, agrees: e.combined.agrees } : { available: false },
    }, this.deps.policy);
    if (outcome.decision === 'KEEP') return null;
    if (consensus) outcome = { ...outcome, inputs: { ...outcome.inputs, consensus: consensus as unknown as Record<string, unknown> } } as typeof outcome;
    if (protectedIds.has(id)) {
      // A suspected false flag for this text: its YES goes to review and it stays served (a good text must not leave on a false report).
      outcome = { ...outcome, decision: 'NEEDS_REVIEW', withhold: false, reason: `${outcome.reason}; but ${(consensus as ConsensusResult).reason}: needs review (kept in serving)` } as typeof outcome;
    }
    return outcome;
  }

  /** Records the outcome (QuarantineTextUseCase: Postgres first, then the store); true when the text left serving. */
  private async apply(id: string, outcome: DecisionOutcome): Promise<boolean> {
    const { ev, evidence, evidenceError } = this.run;
    const { judge } = this.deps;
    const v = this.run.verdictRows.get(id);
    const e = evidence[id];
    const res = await this.deps.quarantineText.execute({
      documentId: id, feedbackId: ev.id, collection: ev.collection, policy: outcome.policy,
      state: outcome.decision === 'QUARANTINE' ? 'QUARANTINED' : 'NEEDS_REVIEW', servedDuringReview: !outcome.withhold,
      reason: `${outcome.reason} — query "${ev.query}", wrong answer "${ev.wrongAnswer}", judge ${judge.kind}:${judge.model}`,
      evidence: {
        policy: { name: outcome.policy, decision: outcome.decision, withhold: outcome.withhold, reason: outcome.reason, inputs: { ...outcome.inputs } },
        judge: { kind: judge.kind, model: judge.model, promptVersion: judge.promptVersion, label: v?.label, reply: v?.reply, signals: v?.signals ?? null, spans: v?.spans ?? null },
        retrieval: this.run.ranks.get(id) ?? null,
        retrieverEvidence: e ?? (evidenceError ? { error: evidenceError } : null),
      },
      actor: this.deps.actor,
    });
    // By the record's state: trust, caps and remembered decisions (QuarantineText) may have sent a QUARANTINE to review.
    // A held low-trust review this decision approved (`promoted`) is this event's quarantine.
    if (res.created) (res.record.state === 'QUARANTINED' ? this.quarantined : this.review).push(id);
    else if (res.promoted) this.quarantined.push(id);
    return res.record.state === 'QUARANTINED' || (res.record.state === 'NEEDS_REVIEW' && !res.record.servedDuringReview);
  }

  private async isVetted(id: string): Promise<boolean> {
    const { vettedBefore } = this.report;
    if (vettedBefore === null) return false;
    const [d] = await docsOf(this.deps.documents, this.run, [id]);
    return d !== undefined && new Date(d.createdAt).getTime() < vettedBefore;
  }
}

/** The verdict's window coverage (how much of the question the text restates around the answer), when the judge gave one. */
function coverageOf(run: TraceRun, id: string): number | undefined {
  const w = run.verdictRows.get(id)?.signals?.windowCoverage;
  return typeof w === 'number' ? w : undefined;
}

/** The registry rows of `ids` (those registered), in the order asked, reading only the ones the run has not read. */
async function docsOf(documents: DocumentRepository, run: TraceRun, ids: readonly string[]): Promise<DocumentRow[]> {
  const missing = ids.filter((id) => !run.docs.has(id));
  if (missing.length) for (const d of await documents.get(missing)) run.docs.set(d.id, d);
  return ids.flatMap((id) => (run.docs.has(id) ? [run.docs.get(id)!] : []));
}

async function textsOf(documents: DocumentRepository, run: TraceRun, ids: readonly string[]): Promise<Map<string, string>> {
  return new Map((await docsOf(documents, run, ids)).map((d) => [d.id, d.text]));
}
