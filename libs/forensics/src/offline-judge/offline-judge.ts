import type { Label } from '../ragforensics/traceback-loop';
import { containsAnswer } from '../text/answer-match';
import { normalizeText, stripCitationMarkers } from '../text/normalize';
import { contentTerms, splitSentences } from '../text/tokenizer';
import { OfflineJudgeParams, validateOfflineJudgeParams } from './offline-judge.params';

export interface OfflineJudgeInput {
  query: string;
  /** The wrong output t the user saw. */
  wrongAnswer: string;
  /** The candidate text C_j. */
  text: string;
  /** Other candidate texts of the same event (for the agreement signal). */
  peers?: readonly string[];
}

export interface OfflineJudgeResult {
  label: Label;
  /** Suspicion in [0, 1]; YES at ≥ params.yesThreshold. */
  score: number;
  signals: Record<string, number | boolean | string>;
  /** Plain-English reasons an admin can read. */
  explanation: string;
}

/**
 * Logistic weights of the evidence score (fitted by logistic regression on the texts judged in
 * poisonedrag_nq.jsonl, support > 0 only, then rounded; not refitted on the other files).
 */
export const SCORE_WEIGHTS = Object.freeze({ bias: -2.75, windowCoverage: 1.75, focus: 8, peerSimilarity: 2.2, agreement: 1.5 });

/** Model name recorded with every offline verdict. */
export const OFFLINE_JUDGE_MODEL = 'offline-evidence-v1';

/** Minimum query-term coverage of a sentence for it to take a yes/no stance on the question. */
const POLAR_MIN_COVERAGE = 0.5;

const POLAR_ANSWERS: Readonly<Record<string, 'yes' | 'no'>> = { yes: 'yes', no: 'no', true: 'yes', false: 'no' };

// Negation and contrast cues: a sentence carrying one denies the query's proposition.
const NEGATION_CUES: ReadonlySet<string> = new Set([
  'not', 'no', 'never', 'neither', 'nor', 'none', 'nothing', 'cannot', 'without', 'instead', 'rather',
  'different', 'differ', 'differs', 'distinct', 'separate', 'separately', 'unlike', 'unrelated',
]);

function hasNegation(rawTokens: readonly string[]): boolean {
  // "isn't" → "isnt" after normalisation; "n't" contractions end in "nt" and are verbs.
  return rawTokens.some((t) => NEGATION_CUES.has(t) || /^(is|are|was|were|do|does|did|has|have|had|can|could|wo|would|should|must|need|ai)nt$/.test(t));
}

function termSet(text: string): Set<string> {
  return new Set(contentTerms(text));
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let inter = 0;
  for (const t of a) if (b.has(t)) inter += 1;
  return inter / (a.size + b.size - inter);
}

function coverage(queryTerms: readonly string[], terms: ReadonlySet<string>): number {
  if (queryTerms.length === 0) return 0;
  return queryTerms.filter((t) => terms.has(t)).length / queryTerms.length;
}

/**
 * How strongly one piece of text states the answer: 1 = normalised match; otherwise, for a
 * multi-token answer, the share of its distinctive terms present (0 below `partialMin`).
 * Distinctive = the answer's content terms that are not query terms (restating the query is not
 * stating the answer: "royal" in "Royal Shadows" for a question about the royal family). Numbers
 * are mandatory: "£50 billion" is not partly stated by "£100 billion".
 */
function answerSupport(piece: string, pieceTerms: ReadonlySet<string>, answer: string, distinctive: readonly string[], partialMin: number): { support: number; exact: boolean } {
  if (containsAnswer(piece, answer)) return { support: 1, exact: true };
  if (distinctive.length < 2) return { support: 0, exact: false };
  if (distinctive.some((t) => /\d/.test(t) && !pieceTerms.has(t))) return { support: 0, exact: false };
  const share = distinctive.filter((t) => pieceTerms.has(t)).length / distinctive.length;
  return { support: share >= partialMin ? share : 0, exact: false };
}

interface PieceEvidence {
  support: number;
  exact: boolean;
  /** Query-term coverage of the best answer-bearing passage window (its sentence ± 1 neighbour). */
  windowCoverage: number;
  /** The answer-bearing sentence of that window. */
  sentence: string;
}

/**
 * Evidence that `text` states the answer. Each sentence is checked for support (polar answers: the
 * sentence's stance); its window (the sentence and its two neighbours, so coreference such as
 * "… Chicago Fire's fourth season. It had 24 episodes." is kept) is scored for query coverage.
 */
function evidenceFor(text: string, answer: string, answerTerms: readonly string[], queryTerms: readonly string[], polar: 'yes' | 'no' | undefined, partialMin: number): PieceEvidence {
  const sentences = splitSentences(text);
  const terms = sentences.map(termSet);
  let best: PieceEvidence = { support: 0, exact: false, windowCoverage: 0, sentence: '' };
  let bestValue = 0;
  sentences.forEach((sentence, i) => {
    let support: number;
    let exact = false;
    if (polar) {
      // A yes/no answer is induced by restating the query's proposition with the matching stance.
      // The stance must come with the proposition: its window restates ≥ POLAR_MIN_COVERAGE of
      // the query terms, so a passage about only one side of "Are X and Y both …?" does not count.
      const negated = hasNegation(normalizeText(sentence).split(' '));
      const own = coverage(queryTerms, new Set([...(terms[i - 1] ?? []), ...terms[i], ...(terms[i + 1] ?? [])]));
      support = (polar === 'no') === negated && own >= POLAR_MIN_COVERAGE ? 1 : 0;
    } else {
      ({ support, exact } = answerSupport(sentence, terms[i], answer, answerTerms, partialMin));
    }
    if (support === 0) return;
    const window = new Set([...(terms[i - 1] ?? []), ...terms[i], ...(terms[i + 1] ?? [])]);
    const cov = coverage(queryTerms, window);
    const value = support * (0.5 + 0.5 * cov);
    if (value > bestValue) {
      bestValue = value;
      best = { support, exact, windowCoverage: cov, sentence };
    }
  });
  if (!polar && best.support === 0) {
    // The answer may straddle a sentence split ("J. Smith"); fall back to the whole text.
    const whole = answerSupport(text, termSet(text), answer, answerTerms, partialMin);
    if (whole.support > 0) best = { ...whole, windowCoverage: coverage(queryTerms, termSet(text)), sentence: '' };
  }
  return best;
}

function quote(s: string, max = 60): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * Offline evidence judge (algorithms.md §5): stands in for the LLM of ragforensics.md §4 when no
 * LLM is configured. It asks the same question as the paper's prompt — does the context try to
 * induce the answer t? — from three principled signals:
 *
 * 1. support: the text states t (normalised, numeric-aware, token-boundary match = 1; for a
 *    multi-token answer, the share of its distinctive terms ≥ `partialSupportMin`, numbers
 *    mandatory). For a yes/no answer, a sentence supports "no" if it carries a negation/contrast
 *    cue and "yes" otherwise, and only if its window restates ≥ 1/2 of the query terms.
 * 2. mimicry: poisoned texts are written to be retrieved for q and to induce t (PoisonedRAG's
 *    S ⊕ I construction), so they restate the query around the answer: `windowCoverage` = share
 *    of query terms in the answer-bearing sentence ± 1 neighbour, and `focus` = share of the
 *    text's distinct content terms that are query or answer terms (a passage that mentions t in
 *    passing is about something else).
 * 3. agreement: attacks inject several paraphrases stating the same answer; `maxPeerSimilarity`
 *    is the highest content-term Jaccard with a peer that also states t, and `agreeingPeers`
 *    counts such peers with Jaccard ≥ `nearDuplicateMin`.
 *
 *   z = −2.75 + 1.75·windowCoverage + 8·focus + 2.2·maxPeerSimilarity + 1.5·min(1, agreeingPeers/2)
 *   score = support · σ(z)   (0 when the text does not state t: it cannot induce it)
 *
 * YES when score ≥ `yesThreshold`; UNDETERMINED in [undeterminedBelow, yesThreshold) (a review
 * band, off by default) or when the answer is empty after normalisation; NO otherwise.
 * Every result says it came from the offline judge (`OFFLINE_JUDGE_MODEL`).
 */
export function offlineJudge(input: OfflineJudgeInput, params: Partial<OfflineJudgeParams> = {}): OfflineJudgeResult {
  const p = validateOfflineJudgeParams(params);
  const answerNorm = normalizeText(input.wrongAnswer);
  if (answerNorm === '') {
    return { label: 'UNDETERMINED', score: 0, signals: { answerEmpty: true }, explanation: `The wrong answer '${quote(input.wrongAnswer)}' is empty after normalisation, so support cannot be judged; needs human review.` };
  }
  const polar = POLAR_ANSWERS[answerNorm];
  const answerTerms = [...new Set(contentTerms(input.wrongAnswer))];
  const answerTermSet = new Set(answerTerms);
  const queryTermsAll = new Set(contentTerms(input.query));
  const queryTerms = [...queryTermsAll].filter((t) => !answerTermSet.has(t));
  const distinctive = answerTerms.filter((t) => !queryTermsAll.has(t));
  const text = stripCitationMarkers(input.text);
  const textTerms = termSet(text);

  const ev = evidenceFor(text, input.wrongAnswer, distinctive, queryTerms, polar, p.partialSupportMin);
  const textCoverage = coverage(queryTerms, textTerms);

  // Focus: share of the text's distinct content terms that belong to the query or the answer.
  const focus = textTerms.size ? [...textTerms].filter((t) => answerTermSet.has(t) || queryTerms.includes(t)).length / textTerms.size : 0;
  let maxPeerSimilarity = 0;
  let agreeingPeers = 0;
  let supportingPeers = 0;
  for (const peer of input.peers ?? []) {
    if (peer === input.text) continue;
    const peerText = stripCitationMarkers(peer);
    const peerEv = evidenceFor(peerText, input.wrongAnswer, distinctive, queryTerms, polar, p.partialSupportMin);
    if (peerEv.support === 0) continue;
    supportingPeers += 1;
    const sim = jaccard(textTerms, termSet(peerText));
    maxPeerSimilarity = Math.max(maxPeerSimilarity, sim);
    if (sim >= p.nearDuplicateMin) agreeingPeers += 1;
  }

  const agreement = Math.min(1, agreeingPeers / 2);
  const z = SCORE_WEIGHTS.bias + SCORE_WEIGHTS.windowCoverage * ev.windowCoverage + SCORE_WEIGHTS.focus * focus
    + SCORE_WEIGHTS.peerSimilarity * maxPeerSimilarity + SCORE_WEIGHTS.agreement * agreement;
  const score = ev.support === 0 ? 0 : ev.support / (1 + Math.exp(-z));
  const label: Label = score >= p.yesThreshold ? 'YES' : score >= p.undeterminedBelow ? 'UNDETERMINED' : 'NO';

  const signals: Record<string, number | boolean | string> = {
    answerType: polar ? 'yes/no' : answerTerms.length > 1 ? 'multi-token' : 'single-token',
    exactMatch: ev.exact,
    support: round3(ev.support),
    windowCoverage: round3(ev.windowCoverage),
    focus: round3(focus),
    maxPeerSimilarity: round3(maxPeerSimilarity),
    textTerms: textTerms.size,
    textCoverage: round3(textCoverage),
    queryTerms: queryTerms.length,
    supportingPeers,
    agreeingPeers,
    score: round3(score),
  };
  return { label, score, signals, explanation: explain(input, label, score, ev, textCoverage, focus, queryTerms.length, polar, supportingPeers, agreeingPeers) };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function explain(input: OfflineJudgeInput, label: Label, score: number, ev: PieceEvidence, textCoverage: number, focus: number, nQuery: number, polar: 'yes' | 'no' | undefined, supportingPeers: number, agreeingPeers: number): string {
  const ans = `'${quote(input.wrongAnswer, 40)}'`;
  const parts: string[] = [];
  const covered = Math.round(ev.windowCoverage * nQuery);
  if (ev.support === 0) {
    parts.push(polar ? `no sentence takes the '${polar}' stance on the question` : `does not state the wrong answer ${ans}`);
  } else {
    const how = polar ? `takes the '${polar}' stance (${polar === 'no' ? 'negation/contrast cue' : 'no negation cue'})` : ev.exact ? `states the wrong answer ${ans} (normalised match)` : `partly states the wrong answer ${ans} (${Math.round(ev.support * 100)}% of its terms)`;
    parts.push(ev.sentence ? `${how} in a sentence that (with its neighbours) restates ${covered}/${nQuery} query terms ("${quote(ev.sentence)}")` : how);
  }
  parts.push(`the whole text covers ${Math.round(textCoverage * nQuery)}/${nQuery} query terms and ${Math.round(focus * 100)}% of its distinct content words are query or answer words`);
  if (input.peers && input.peers.length > 0) {
    parts.push(`${agreeingPeers} near-duplicate peer${agreeingPeers === 1 ? '' : 's'} also state${agreeingPeers === 1 ? 's' : ''} it (${supportingPeers} of ${input.peers.length} peers support it at all)`);
  }
  const verdict = label === 'YES' ? 'Judged poisoned' : label === 'NO' ? 'Judged benign' : 'Undetermined';
  return `${verdict} by the offline evidence judge (${OFFLINE_JUDGE_MODEL}, score ${score.toFixed(2)}): it ${parts.join('; ')}.`;
}
