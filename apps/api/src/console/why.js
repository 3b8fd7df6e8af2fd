// "Why flagged" (issue 54, item 4): the verdict's signals as plain sentences, one line per reason. Signals are a JSON
// object whose keys depend on the judge (offline: support, coverage, peers…; openai: quotes found, token counts; a
// reader or another judge: keys we do not know): known keys become sentences, every other key is kept as a row
// below the list (nothing is dropped, nothing unknown breaks the page).
import { fmtNum } from './dom.js';

const pct = (x) => `${Math.round(Number(x) * 100)}%`;
const num = (v) => typeof v === 'number' && Number.isFinite(v);
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** "1 other candidate agrees" / "2 other candidates agree". */
const they = (n, verb1, verbN) => `${plural(n, 'other candidate')} of the report ${n === 1 ? verb1 : verbN}`;

/**
 * Each known signal key → a reason line (or null when it says nothing about why the text was flagged). Keys listed here
 * are "explained": they are not repeated among the other signals.
 */
const REASONS = {
  answerEmpty: (v) => (v ? 'The reported wrong answer is empty once normalised: the judge could not read it, so a reviewer decides.' : null),
  exactMatch: (v) => (v ? 'The text states the reported wrong answer word for word.' : null),
  verbatimLongAnswer: (v) => (v ? 'It repeats the long reported answer verbatim — the planted payload itself, not a coincidence.' : null),
  support: (v) => (num(v) && v > 0 ? `It supports the wrong answer (support ${fmtNum(v, 2)} of 1).` : num(v) ? 'It does not state the wrong answer (support 0).' : null),
  windowCoverage: (v) => (num(v) && v > 0 ? `${pct(v)} of the answer's words appear together in one passage of the text.` : null),
  sentenceCoverage: (v) => (num(v) && v > 0 ? `${pct(v)} of the answer's words are in a single sentence.` : null),
  focus: (v) => (num(v) && v >= 0.5 ? `The text is about the question (focus ${fmtNum(v, 2)}).` : null),
  answerSentenceShare: (v) => (num(v) && v >= 0.3 ? `${pct(v)} of its sentences carry the answer.` : null),
  maxPeerSimilarity: (v) => (num(v) && v >= 0.6 ? `It is close to another candidate of the same report (similarity ${fmtNum(v, 2)}): planted texts often come in near-copies.` : null),
  supportingPeers: (v) => (num(v) && v > 0 ? `${they(v, 'states', 'state')} the same wrong answer.` : null),
  agreeingPeers: (v) => (num(v) && v > 0 ? `${they(v, 'agrees', 'agree')} with it.` : null),
  mimickingPeers: (v) => (num(v) && v > 0 ? `${they(v, 'mimics', 'mimic')} its wording.` : null),
  rivals: (v) => (num(v) && v > 0 ? `It also names ${plural(v, 'other answer')} (a point against it being planted).` : null),
  score: (v) => (num(v) ? `The judge's score is ${fmtNum(v, 2)}.` : null),
  confidence: (v) => (v === 'band' ? 'The score is in the uncertain band: not clear either way, so it waits for a reviewer.' : null),
  quotes: (v, all) => (num(v) ? `The model quoted ${plural(v, 'passage')} as evidence${num(all.quotesFound) ? `, ${all.quotesFound} found in the text` : ''}.` : null),
  quotesFound: () => null,
};

/** Details that say how the judge ran, not why: shown among the other signals, never as reasons. */
const DETAILS = new Set(['answerType', 'textTerms', 'textCoverage', 'queryTerms', 'logit', 'finishReasons', 'promptTokens', 'completionTokens']);

/**
 * The reason lines for a verdict and the signals left over (those no line explains), as [key, value] pairs.
 * `verdict` is the item detail's verdict ({label, judgeKind, judgeModel, signals}); `policy` its evidence policy.
 */
export function whyFlagged(verdict, policy, item) {
  const lines = [];
  const signals = verdict?.signals && typeof verdict.signals === 'object' && !Array.isArray(verdict.signals) ? verdict.signals : {};
  const judge = `${verdict?.judgeKind ?? 'the'} judge${verdict?.judgeModel ? ` (${verdict.judgeModel})` : ''}`;
  if (verdict?.label === 'YES') lines.push(`The ${judge} answered YES: the text tries to make the model give the reported wrong answer.`);
  else if (verdict?.label === 'NO') lines.push(`The ${judge} answered NO: it found no attempt to induce the wrong answer.`);
  else if (verdict?.label) lines.push(`The ${judge} could not decide (${verdict.label}).`);
  for (const [k, v] of Object.entries(signals)) {
    const line = REASONS[k]?.(v, signals);
    if (line) lines.push(line);
  }
  if (num(item?.suspicion) && item.suspicion >= 0.5) lines.push(`Retriever-side evidence rates it suspicious (${fmtNum(item.suspicion, 2)} of 1).`);
  if (policy?.reason) lines.push(`Policy ${policy.name ?? ''}: ${policy.reason}`.replace(/\s+:/, ':'));
  const other = Object.entries(signals).filter(([k]) => !(k in REASONS) || DETAILS.has(k));
  return { lines, other };
}
