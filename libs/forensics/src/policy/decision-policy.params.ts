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
 */
export type PolicyName = 'judge-only' | 'corroborated';

export interface DecisionPolicyParams {
  name: PolicyName;
  reviewServing: 'withhold' | 'serve';
}

export const DEFAULT_DECISION_POLICY: DecisionPolicyParams = { name: 'judge-only', reviewServing: 'withhold' };

export function validateDecisionPolicy(p: Partial<DecisionPolicyParams> = {}): DecisionPolicyParams {
  const out = { ...DEFAULT_DECISION_POLICY, ...p };
  if (out.name !== 'judge-only' && out.name !== 'corroborated') throw new RangeError(`policy must be 'judge-only' or 'corroborated', got '${String(out.name)}'`);
  if (out.reviewServing !== 'withhold' && out.reviewServing !== 'serve') throw new RangeError(`reviewServing must be 'withhold' or 'serve', got '${String(out.reviewServing)}'`);
  return out;
}
