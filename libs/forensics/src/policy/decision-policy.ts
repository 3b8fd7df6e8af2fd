import type { Label } from '../ragforensics/traceback-loop';
import { RESTATES_QUESTION_MIN, validateDecisionPolicy, type DecisionPolicyParams } from './decision-policy.params';
import type { SiblingMatch } from './planted-siblings';

export type Decision = 'QUARANTINE' | 'NEEDS_REVIEW' | 'KEEP';

export interface DecisionInput {
  label: Label;
  /**
   * The judge's own confidence (issue 13): 'band' when its score lies inside its confidence band
   * (the offline judge's fitted band), so neither YES nor NO is clear. Absent = clear (an LLM's label).
   */
  confidence?: 'clear' | 'band';
  /** Combined retriever-side evidence; `available: false` when it could not be computed. */
  evidence: { available: boolean; suspicion?: number; agrees?: boolean };
  /**
   * Whether the same report (event) has a clear YES (a YES verdict outside the band), for
   * `bandWithhold: 'event'`. Absent = unknown: band verdicts are decided as under 'always'.
   */
  eventHasClearYes?: boolean;
  /**
   * The text restates the question around the answer: its claim passage covers at least `RESTATES_QUESTION_MIN` of
   * the question's terms (the offline judge's `windowCoverage`), for `bandWithhold: 'restated'`. Absent = no.
   */
  restatesQuestion?: boolean;
  /**
   * The report's only clear YES is one text that does not restate the question (`loneClearYes`), for
   * `loneYes: 'review'`. Absent = no.
   */
  eventLoneYes?: boolean;
  /**
   * For a NO: the text shares much of its wording with two or more of the report's clear YES texts
   * (`plantedSiblings`; computed only for a report taken for an attack), for `siblingWithhold: 'on'`.
   */
  plantedSibling?: SiblingMatch;
  /**
   * The text belongs to its collection's vetted baseline (registered before the collection's `vettedBefore`, set by
   * its operator): a decision that would take it out of serving sends it to review and keeps it served instead.
   * Absent = no.
   */
  vetted?: boolean;
}

/**
 * Is a report's clear YES a lone one (`loneYes`, decision-policy.params.ts)? `clearYes` = the window coverage
 * signal of each clear YES verdict of the report (undefined when its judge reports none). True only for exactly
 * one clear YES whose claim passage covers fewer than `RESTATES_QUESTION_MIN` of the question's terms.
 */
export function loneClearYes(clearYes: readonly (number | undefined)[]): boolean {
  return clearYes.length === 1 && typeof clearYes[0] === 'number' && !restatesQuestion(clearYes[0]);
}

/**
 * Does a claim passage restate the question (`loneYes`, `bandWithhold: 'restated'`)? `coverage` = its window coverage of
 * the question's terms (undefined when the judge reports none: an LLM's verdict, decided as not restating).
 */
export function restatesQuestion(coverage: number | undefined): boolean {
  return typeof coverage === 'number' && coverage >= RESTATES_QUESTION_MIN;
}

export interface DecisionOutcome {
  decision: Decision;
  /** For NEEDS_REVIEW: whether the text is withheld from serving until a reviewer decides. */
  withhold: boolean;
  policy: DecisionPolicyParams['name'];
  reason: string;
  inputs: DecisionInput;
}

/**
 * Applies the policy to one judged candidate. Pure; see decision-policy.params.ts for the rules.
 *
 * A text of the collection's vetted baseline (`input.vetted`) is never taken out of serving by a decision: what would
 * quarantine or withhold it goes to review with the text kept served (issue 33, decision 0320). The operator vouched
 * for the texts registered before the cutoff; a report against one of them is what a false report looks like, and a
 * poisoned text the operator let into the baseline is a reviewer's call, not the judge's.
 */
export function decide(input: DecisionInput, params: Partial<DecisionPolicyParams> = {}): DecisionOutcome {
  const out = decideOnVerdict(input, params);
  if (!input.vetted || (out.decision === 'KEEP') || (out.decision === 'NEEDS_REVIEW' && !out.withhold)) return out;
  return { ...out, decision: 'NEEDS_REVIEW', withhold: false, reason: `${out.reason}; but the text is in the collection's vetted baseline (registered before its cutoff): needs review (kept in serving)` };
}

function decideOnVerdict(input: DecisionInput, params: Partial<DecisionPolicyParams>): DecisionOutcome {
  const p = validateDecisionPolicy(params);
  const base = { policy: p.name, inputs: input };
  // Band verdicts follow their report under `bandWithhold: 'event'` and 'restated' (issue 33; decision-policy.params.ts).
  const byEvent = p.reviewServing === 'withhold' && p.bandWithhold !== 'always' && input.eventHasClearYes !== undefined;
  // A lone clear YES that does not restate the question does not make its report an attack (`loneYes`).
  const lone = p.loneYes === 'review' && input.eventLoneYes === true;
  const clearInEvent = input.eventHasClearYes === true && !lone;
  if (input.label === 'NO' && input.confidence === 'band' && byEvent && clearInEvent) {
    return { ...base, decision: 'NEEDS_REVIEW', withhold: true, reason: 'judge leans NO but its score is inside its confidence band, in a report with a clear YES: needs review (withheld from serving meanwhile)' };
  }
  if (input.label === 'NO' && input.confidence === 'band') {
    return { ...base, decision: 'NEEDS_REVIEW', withhold: false, reason: "judge leans NO but its score is inside its confidence band: needs review (kept in serving)" };
  }
  if (input.label === 'NO' && input.plantedSibling && p.siblingWithhold === 'on' && p.reviewServing === 'withhold') {
    const s = input.plantedSibling;
    if (s.salad) return { ...base, decision: 'NEEDS_REVIEW', withhold: true, reason: `judge reads no claim, but the text carries token salad at its edge like ${s.siblings} texts of this report judged clearly poisoned (an optimisation attack's adversarial tokens): likely from the same planted group; needs review (withheld from serving meanwhile)` };
    return { ...base, decision: 'NEEDS_REVIEW', withhold: true, reason: `judge reads no claim, but the text shares its wording with ${s.siblings} texts of this report judged clearly poisoned (content-word overlap up to ${s.bestJaccard.toFixed(2)}): likely reworded from the same planted group; needs review (withheld from serving meanwhile)` };
  }
  if (input.label === 'NO') return { ...base, decision: 'KEEP', withhold: false, reason: 'judge: does not induce the wrong answer' };
  if (input.label === 'UNDETERMINED') return { ...base, decision: 'NEEDS_REVIEW', withhold: false, reason: 'judge gave no usable label: needs a human decision (kept in serving)' };
  if (input.confidence === 'band') {
    // Withheld per `reviewServing`, like any YES awaiting review: measured with the band kept in
    // serving, the planted texts inside it went on answering (suite dev, Poison Hit@5 after the
    // traceback 0.29 → 0.73 on NQ). With `bandWithhold: 'event'`, only in a report that also has a
    // clear YES (see decision-policy.params.ts).
    if (byEvent && !clearInEvent && p.bandWithhold === 'restated' && input.restatesQuestion === true) {
      return { ...base, decision: 'NEEDS_REVIEW', withhold: true, reason: 'judge leans YES but its score is inside its confidence band; no verdict of this report is a clear YES, but this text restates the question around the answer (as a text written for the question does): needs review (withheld from serving meanwhile)' };
    }
    if (byEvent && !clearInEvent) {
      return { ...base, decision: 'NEEDS_REVIEW', withhold: false, reason: 'judge leans YES but its score is inside its confidence band, and no verdict of this report is a clear YES: needs review (kept in serving meanwhile)' };
    }
    return { ...base, decision: 'NEEDS_REVIEW', withhold: p.reviewServing === 'withhold', reason: `judge leans YES but its score is inside its confidence band: needs review (${p.reviewServing === 'withhold' ? 'withheld from serving' : 'kept in serving'} meanwhile)` };
  }
  if (lone) {
    return { ...base, decision: 'NEEDS_REVIEW', withhold: false, reason: "judge: tries to induce the wrong answer, but it is the report's only clear YES and does not restate the question (a genuine passage stating a reported answer looks like this; a planted group seldom does): needs review (kept in serving meanwhile)" };
  }
  if (p.name === 'judge-only') return { ...base, decision: 'QUARANTINE', withhold: true, reason: 'judge: tries to induce the wrong answer (judge-only policy)' };
  if (input.evidence.available && input.evidence.agrees) {
    return { ...base, decision: 'QUARANTINE', withhold: true, reason: `judge YES, corroborated by retriever evidence (suspicion ${fmt(input.evidence.suspicion)})` };
  }
  const why = input.evidence.available ? `retriever evidence does not agree (suspicion ${fmt(input.evidence.suspicion)})` : 'no retriever evidence available';
  return { ...base, decision: 'NEEDS_REVIEW', withhold: p.reviewServing === 'withhold', reason: `judge YES but ${why}: needs review (${p.reviewServing === 'withhold' ? 'withheld from serving' : 'kept in serving'} meanwhile)` };
}

function fmt(x: number | undefined): string {
  return x === undefined ? 'n/a' : x.toFixed(2);
}
