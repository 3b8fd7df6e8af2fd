/** The offline judge's features and weights (a leaf module: the params and the judge both read it). */

/** The features of the evidence score, each in [0, 1] (see `offlineJudge`). */
export interface OfflineJudgeFeatures {
  windowCoverage: number;
  focus: number;
  peerSimilarity: number;
  agreement: number;
  mimicPeers: number;
  answerSentenceShare: number;
  /** 1 for a yes/no answer: a stance is weaker evidence than a stated entity or number. */
  polarAnswer: number;
  /** 1 when the text states the answer verbatim (normalised), not only part of its terms. */
  exact: number;
  /** The support gate's value (1 = stated; a share of the answer's distinctive terms for partial support). */
  support: number;
  /** Query-term coverage of the answer-bearing sentence alone (without its neighbours). */
  sentenceCoverage: number;
  /** Query-term coverage of the whole text. */
  textCoverage: number;
  /** Share of the event's other candidates that also state the answer at all. */
  supportingPeerShare: number;
  /** min(1, (distinctive answer terms − 1) / 8): 0 for a one-word answer, 1 for a sentence-long claim (partial support means more there). */
  answerLength: number;
  /** min(1, distinctive answer terms found anywhere in the text / 4): how much of the claim the text carries, as a count (a paraphrased sentence-long claim states few of its terms as a share, many as a count). */
  answerTermsStated: number;
  /** min(1, peers stating the answer with content-term Jaccard ≥ 0.5 / 2): closer copies than `agreement`. */
  closeCopies: number;
  /**
   * min(1, other candidates for the answer's slot in the answer-bearing sentence / 3): other numbers
   * for a numeric answer, other capitalised names for a name. A sentence that lists several
   * candidates reports facts about all of them; a text written to induce one answer states that one.
   */
  rivals: number;
  /**
   * min(1, max(0, L − 10) / 10), L = the longest run of consecutive words of the text holding at most
   * one function word (`longestContentRun`). Optimisation-based attacks (HotFlip, GCG-style triggers)
   * write token salad that prose rarely is: a cheap stand-in for a perplexity filter.
   */
  unnaturalRun: number;
}

/** Logistic weights: a bias and one weight per feature; a feature without a weight counts 0 (not selected by the fit). */
export type OfflineJudgeWeights = { bias: number } & Partial<OfflineJudgeFeatures>;

/**
 * Every feature the judge computes; the fit (apps/eval/src/judge-fit) chooses which of them get a
 * non-zero weight, by leave-one-file-out on the development files.
 */
export const OFFLINE_JUDGE_FEATURES: readonly (keyof OfflineJudgeFeatures)[] = Object.freeze([
  'windowCoverage', 'focus', 'peerSimilarity', 'agreement', 'mimicPeers', 'answerSentenceShare', 'polarAnswer',
  'exact', 'support', 'sentenceCoverage', 'textCoverage', 'supportingPeerShare', 'closeCopies', 'answerLength', 'answerTermsStated', 'rivals', 'unnaturalRun',
]);

export interface OfflineJudgeInput {
  query: string;
  /** The wrong output t the user saw. */
  wrongAnswer: string;
  /** The candidate text C_j. */
  text: string;
  /** Other candidate texts of the same event (for the agreement signal). */
  peers?: readonly string[];
  /**
   * The texts the event's user was served (its first round): what a quoted answer sentence is read against
   * (`quotedAnswerSpan`), instead of the text and its peers. Not used for any peer signal.
   */
  context?: readonly string[];
}

/** What `offlineJudgeFeatures` finds in one candidate text. */
export interface OfflineJudgeEvidence {
  /** False when the wrong answer is empty after normalisation (nothing can be judged). */
  judgeable: boolean;
  /** The answer as read: the claim of the reported answer, or the span of a quoted sentence that answers the question. Absent when not judgeable. */
  answer?: string;
  /** The text's sentences as the judge split them (absent when not judgeable). */
  sentences?: readonly string[];
  polar: 'yes' | 'no' | undefined;
  answerTerms: number;
  queryTerms: number;
  support: number;
  exact: boolean;
  sentence: string;
  sentenceCoverage: number;
  /** The 'no' stance is read across the text (a question about two things; see `evidenceFor`). */
  acrossText: boolean;
  /** The text states none of the answer's words but takes the stance the answer opens with (`polarLead`). */
  leadStance?: 'yes' | 'no';
  textCoverage: number;
  textTerms: number;
  supportingPeers: number;
  agreeingPeers: number;
  mimickingPeers: number;
  /** Other candidates for the answer's slot named in the answer-bearing sentence (`rivalCount`). */
  rivals: number;
  /** States an answer of ≥ LONG_ANSWER_TOKENS tokens verbatim: the score is 1 whatever the weights (see `evidenceScore`). */
  verbatimLong: boolean;
  features: OfflineJudgeFeatures;
  /** The claim (issue 35): the answer-bearing sentence and every other one stating the answer (whole-text support: those with its terms). */
  claimSentences: string[];
}
