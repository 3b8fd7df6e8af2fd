import fitted from './reader-judge.fitted.json';

/** The reader judge's fitted parameters (reader-judge.fitted.json, written by scripts/fit-offline-judge.ts --reader). */
export interface ReaderJudgeFit {
  model: string;
  /** The encoder the reader's features were computed with (its id must match the reader's). */
  encoder: string;
  partialSupportMin: number;
  /** Bias and weights of both feature lists (the rule judge's and the reader's), one logistic. */
  weights: Record<string, number>;
  yesThreshold: number;
  band: { low: number; high: number };
}

/** The committed fit (every development family; the suite refits it without the held-out family). */
export const READER_JUDGE_FIT: Readonly<ReaderJudgeFit> = Object.freeze(fitted as unknown as ReaderJudgeFit);
