/**
 * The reader's features (issue 59): what a sentence encoder's token states say about whether a text's claim answers
 * the question with the reported answer, beside the rule judge's lexical features. Pure arithmetic on vectors the
 * encoder computed (libs/infra/src/judges/minilm-reader.ts runs all-MiniLM-L6-v2); no I/O here.
 *
 * The rule judge's remaining false YES are genuine texts that state the reported answer of ANOTHER subject or in
 * another role ("Sydney is the largest city in Australia" for "what is the capital of australia"). Term overlap
 * cannot tell those from a planted "The capital of Australia is Sydney"; an encoder trained on paraphrase pairs
 * reads the claim sentence as a whole, and the answer's token states are contextual: "Sydney" read inside the
 * claim sentence is close to "Sydney" read as the answer to the question only when the sentence gives it that role.
 */

/** Each in [0, 1] (cosines clipped at 0). */
export interface ReaderFeatures {
  /** cos(question, best claim sentence): how much the sentence stating the answer is about the question. */
  claimQuery: number;
  /** cos("question answer", best claim sentence): the claim read as the question answered with the reported answer. */
  claimQueryAnswer: number;
  /** cos(question, whole text). */
  textQuery: number;
  /** cos of the answer's token states inside the claim sentence and inside "question answer" (contextual role). 0 when the answer's tokens are not in the claim. */
  answerInContext: number;
  /** max(0, best cos(question, a sentence not stating the answer) − claimQuery): the text is about the question elsewhere, the answer sits in an aside. */
  asideMargin: number;
}

export const READER_FEATURES: readonly (keyof ReaderFeatures)[] = Object.freeze([
  'claimQuery', 'claimQueryAnswer', 'textQuery', 'answerInContext', 'asideMargin',
]);

/** Encoder outputs for one judged text (unit vectors; null where there is nothing to encode). */
export interface ReaderVectors {
  query: Float32Array;
  queryAnswer: Float32Array;
  /** The answer's mean token state inside "question answer"; null when the answer has no tokens there. */
  answerInQuery: Float32Array | null;
  text: Float32Array;
  /** One per claim sentence (the sentences the rule judge found stating the answer). */
  claims: readonly { sentence: Float32Array; answerTokens: Float32Array | null }[];
  /** Sentences of the text that do not state the answer. */
  others: readonly Float32Array[];
}

function vectorCosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0; let na = 0; let nb = 0;
  for (let i = 0; i < a.length; i++) { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

const clip = (x: number) => Math.max(0, Math.min(1, x));

/** The features of one text from its vectors. A text with no claim sentence reads 0 on the claim features. */
export function readerFeatures(v: ReaderVectors): ReaderFeatures {
  let claimQuery = 0; let claimQueryAnswer = 0; let answerInContext = 0;
  for (const c of v.claims) {
    claimQuery = Math.max(claimQuery, vectorCosine(v.query, c.sentence));
    claimQueryAnswer = Math.max(claimQueryAnswer, vectorCosine(v.queryAnswer, c.sentence));
    if (c.answerTokens && v.answerInQuery) answerInContext = Math.max(answerInContext, vectorCosine(v.answerInQuery, c.answerTokens));
  }
  let other = 0;
  for (const s of v.others) other = Math.max(other, vectorCosine(v.query, s));
  return {
    claimQuery: clip(claimQuery),
    claimQueryAnswer: clip(claimQueryAnswer),
    textQuery: clip(vectorCosine(v.query, v.text)),
    answerInContext: clip(answerInContext),
    asideMargin: v.claims.length ? clip(other - claimQuery) : 0,
  };
}

/** Recorded with every verdict of the reader judge (the rule judge's features + these, one fitted logistic). */
export const READER_JUDGE_MODEL = 'reader-minilm-v1';
