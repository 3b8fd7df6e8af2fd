/**
 * The quarantine decision policy (a project design, not from the papers): the judge verdict is the
 * primary signal, retriever-side evidence (BiRD, GRADA, ProGRank) corroborates it.
 *
 * - `judge-only` (default; the paper, RAGForensics, arXiv 2504.21668, §4.2, Algorithm 1): YES →
 *   quarantine.
 * - `corroborated`: YES and the evidence agrees → quarantine; YES without agreeing evidence →
 *   NEEDS_REVIEW.
 * In both, UNDETERMINED → NEEDS_REVIEW (never benign) and NO → keep. A verdict inside the judge's
 * confidence band (issue 13; the offline judge's fitted band) goes to NEEDS_REVIEW whichever way it
 * leans: a YES in the band is withheld per `reviewServing`, a NO in the band stays served.
 *
 * `reviewServing` says whether a text judged YES that awaits review stays served ('serve') or is
 * withheld from serving until a reviewer decides ('withhold', default: a suspected poison should
 * not keep answering users). UNDETERMINED texts always stay served: an unlabelled reply is no
 * evidence of poison (and a broken judge must not empty the knowledge base).
 *
 * `bandWithhold` (issue 33) says when a YES inside the confidence band is withheld (under
 * `reviewServing: 'withhold'`): 'with-clear-yes' (default) only when the same event also has a clear
 * YES (a YES above the band) — a planted group's clear members show the event is an attack, and its
 * uncertain members are then likely planted too — otherwise it waits for review kept in serving; a
 * false report of a correct answer mostly yields weak YES verdicts on genuine texts (median score 0.38
 * against 0.95 on attacks) and no clear one, so uncertainty alone takes nothing out. 'always' = every
 * band YES withheld (before issue 33). Measured both ways: docs/results.md.
 */
export type PolicyName = 'judge-only' | 'corroborated';

export interface DecisionPolicyParams {
  name: PolicyName;
  reviewServing: 'withhold' | 'serve';
  bandWithhold: 'with-clear-yes' | 'always';
}

export const DEFAULT_DECISION_POLICY: DecisionPolicyParams = { name: 'judge-only', reviewServing: 'withhold', bandWithhold: 'with-clear-yes' };

export function validateDecisionPolicy(p: Partial<DecisionPolicyParams> = {}): DecisionPolicyParams {
  const out = { ...DEFAULT_DECISION_POLICY, ...p };
  if (out.name !== 'judge-only' && out.name !== 'corroborated') throw new RangeError(`policy must be 'judge-only' or 'corroborated', got '${String(out.name)}'`);
  if (out.reviewServing !== 'withhold' && out.reviewServing !== 'serve') throw new RangeError(`reviewServing must be 'withhold' or 'serve', got '${String(out.reviewServing)}'`);
  if (out.bandWithhold !== 'with-clear-yes' && out.bandWithhold !== 'always') throw new RangeError(`bandWithhold must be 'with-clear-yes' or 'always', got '${String(out.bandWithhold)}'`);
  return out;
}
