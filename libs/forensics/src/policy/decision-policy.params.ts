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
 * `bandWithhold` (issue 33) says what the judge's uncertain verdicts (inside its confidence band) do
 * to serving, under `reviewServing: 'withhold'`. In every mode they wait for review; the modes differ in serving.
 * 'event': they follow their report — when the same report has a clear YES (a YES above the band), every band
 * verdict of it, leaning YES or NO, is withheld from serving (a planted group's clear members show the report is an
 * attack, and its uncertain texts are then likely planted too); when it has none, they stay served (a false report
 * of a correct answer mostly yields weak YES verdicts on genuine texts — median score 0.38 against 0.95 on attacks —
 * and no clear one, so uncertainty alone takes nothing out).
 * 'restated' (default since decision 0310): as 'event', and in a report without a clear YES a band YES whose claim
 * passage restates the question (covers at least `RESTATES_QUESTION_MIN` of its terms, as a text written to be
 * retrieved for the question does) is withheld too. An attacker who plants one text per question often gets no
 * clear YES: under 'event' that text stayed served for 11 % of the questions (`--suite dev --poison-count 1`),
 * under 'restated' for 4.5 %, at 4.5 points more good texts withheld under identified false reports (10.7 → 15.2 %).
 * 'always' = the rule before issue 33: a band YES is withheld, a band NO stays served, whatever the report holds.
 * Measured all three ways: docs/results.md, docs/decisions/0310.
 *
 * `loneYes` (issue 33) says what a report does whose only clear YES is one text that does not restate the
 * question (its claim passage covers fewer than half of the question's terms, `RESTATES_QUESTION_MIN`).
 * 'act' (default): the YES is quarantined like any other. 'review': that YES waits for review kept in serving, and
 * the report's band verdicts are decided as in a report without a clear YES — on the premise that an attack plants a
 * group written for the question (several texts judged YES, or one that restates the question around the answer)
 * while a genuine passage that states a correct answer someone reported as wrong is usually one text about its own
 * subject. The attacker chooses how many texts to plant: with one planted text per question (`--suite dev
 * --poison-count 1`) 'review' left the planted text in the top 5 after a true report for 45 % of the questions,
 * 'act' for 11 %, at 2.7 points more good texts out under identified false reports (docs/decisions/0290). Applies
 * only to judges that report the coverage (the offline judge); an LLM's verdict carries none and is decided as
 * under 'act'. Measured both ways: docs/results.md.
 *
 * `siblingWithhold` (issue 33): in a report taken for an attack (two or more clear YES, or one that restates the
 * question), a text judged NO that shares much of its wording with two of its clear YES texts, or the token salad at
 * their edge (`plantedSiblings`), waits for review withheld from serving ('on', default): it is likely a member of the planted group that reworded
 * the answer past the judge. 'off' = it stays served like any NO.
 */
export type PolicyName = 'judge-only' | 'corroborated';

export interface DecisionPolicyParams {
  name: PolicyName;
  reviewServing: 'withhold' | 'serve';
  bandWithhold: 'event' | 'restated' | 'always';
  loneYes: 'review' | 'act';
  siblingWithhold: 'on' | 'off';
}

export const DEFAULT_DECISION_POLICY: DecisionPolicyParams = { name: 'judge-only', reviewServing: 'withhold', bandWithhold: 'restated', loneYes: 'act', siblingWithhold: 'on' };

/**
 * Share of the question's terms a claim passage must cover to restate the question (`loneYes`, `bandWithhold: 'restated'`). The same half
 * the offline judge asks of a yes/no stance (`POLAR_MIN_COVERAGE`); set before any policy number was seen.
 */
export const RESTATES_QUESTION_MIN = 0.5;

export function validateDecisionPolicy(p: Partial<DecisionPolicyParams> = {}): DecisionPolicyParams {
  const out = { ...DEFAULT_DECISION_POLICY, ...p };
  if (out.name !== 'judge-only' && out.name !== 'corroborated') throw new RangeError(`policy must be 'judge-only' or 'corroborated', got '${String(out.name)}'`);
  if (out.reviewServing !== 'withhold' && out.reviewServing !== 'serve') throw new RangeError(`reviewServing must be 'withhold' or 'serve', got '${String(out.reviewServing)}'`);
  if (out.bandWithhold !== 'event' && out.bandWithhold !== 'restated' && out.bandWithhold !== 'always') throw new RangeError(`bandWithhold must be 'event', 'restated' or 'always', got '${String(out.bandWithhold)}'`);
  if (out.loneYes !== 'review' && out.loneYes !== 'act') throw new RangeError(`loneYes must be 'review' or 'act', got '${String(out.loneYes)}'`);
  if (out.siblingWithhold !== 'on' && out.siblingWithhold !== 'off') throw new RangeError(`siblingWithhold must be 'on' or 'off', got '${String(out.siblingWithhold)}'`);
  return out;
}
