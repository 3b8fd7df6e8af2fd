/**
 * Detection metrics of a traceback (RAGForensics, arXiv 2504.21668, App. 8.2, Eq. 3–5), over the
 * texts the traceback judged in an event. Positives are poisoned texts, a positive verdict is YES:
 *
 *   FPR  = FP / (FP + TN)            share of judged clean texts wrongly flagged
 *   FNR  = FN / (FN + TP)            share of judged poisoned texts missed
 *   DACC = (TP + TN) / (TP + FP + TN + FN)
 *
 * Two aggregations over events, because the two official codebases differ:
 * - pooled: sum the confusion counts over events, then apply the formulas once;
 * - macro: apply the formulas per event, then average over the events where the rate is defined
 *   (FPR over events that judged ≥ 1 clean text, FNR over events that judged ≥ 1 poisoned text,
 *   DACC over events that judged anything).
 * A rate whose denominator is 0 is `null` (undefined), never 0.
 */
export interface ConfusionCounts {
  tp: number;
  fp: number;
  tn: number;
  fn: number;
}

export interface DetectionRates {
  /** In [0, 1]; null when nothing was judged. */
  dacc: number | null;
  /** In [0, 1]; null when no clean text was judged. */
  fpr: number | null;
  /** In [0, 1]; null when no poisoned text was judged. */
  fnr: number | null;
}

export interface MacroRates extends DetectionRates {
  /** Events that entered each average. */
  events: { dacc: number; fpr: number; fnr: number };
}

/** One judged text: is it poisoned (ground truth), and did the traceback flag it (verdict YES)? */
export interface JudgedText {
  poisoned: boolean;
  flagged: boolean;
}

export const ZERO_CONFUSION: Readonly<ConfusionCounts> = Object.freeze({ tp: 0, fp: 0, tn: 0, fn: 0 });

function checkCounts(c: ConfusionCounts): void {
  for (const k of ['tp', 'fp', 'tn', 'fn'] as const) {
    if (!Number.isInteger(c[k]) || c[k] < 0) throw new RangeError(`confusion count ${k} must be a non-negative integer, got ${c[k]}`);
  }
}

/** Confusion counts of one event's judged texts. */
export function confusionOf(texts: readonly JudgedText[]): ConfusionCounts {
  const c = { tp: 0, fp: 0, tn: 0, fn: 0 };
  for (const t of texts) {
    if (t.poisoned) t.flagged ? c.tp++ : c.fn++;
    else t.flagged ? c.fp++ : c.tn++;
  }
  return c;
}

/** Element-wise sum of confusion counts. */
export function addConfusion(a: ConfusionCounts, b: ConfusionCounts): ConfusionCounts {
  return { tp: a.tp + b.tp, fp: a.fp + b.fp, tn: a.tn + b.tn, fn: a.fn + b.fn };
}

const ratio = (num: number, den: number): number | null => (den > 0 ? num / den : null);

/** DACC, FPR, FNR of one confusion table (RAGForensics App. 8.2, Eq. 3–5). */
export function detectionRates(c: ConfusionCounts): DetectionRates {
  checkCounts(c);
  return {
    dacc: ratio(c.tp + c.tn, c.tp + c.fp + c.tn + c.fn),
    fpr: ratio(c.fp, c.fp + c.tn),
    fnr: ratio(c.fn, c.fn + c.tp),
  };
}

/** Pooled rates: counts summed over events, formulas applied once. */
export function pooledRates(events: readonly ConfusionCounts[]): DetectionRates & { counts: ConfusionCounts } {
  const counts = events.reduce(addConfusion, { ...ZERO_CONFUSION });
  return { ...detectionRates(counts), counts };
}

function mean(xs: readonly number[]): number | null {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/** Macro rates: per-event rates averaged over the events where each is defined. */
export function macroRates(events: readonly ConfusionCounts[]): MacroRates {
  const per = events.map(detectionRates);
  const defined = (key: keyof DetectionRates) => per.map((r) => r[key]).filter((x): x is number => x !== null);
  const dacc = defined('dacc');
  const fpr = defined('fpr');
  const fnr = defined('fnr');
  return { dacc: mean(dacc), fpr: mean(fpr), fnr: mean(fnr), events: { dacc: dacc.length, fpr: fpr.length, fnr: fnr.length } };
}
