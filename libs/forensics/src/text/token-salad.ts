import { rawTokens } from './normalize';
import { isStopword } from './stopwords';

/**
 * The longest run of consecutive words holding at most one function word (`ENGLISH_STOPWORDS`).
 * Optimisation-based attacks (HotFlip, GCG-style triggers) write token salad that prose rarely is: a
 * cheap stand-in for a perplexity filter (the consensus check gives such texts no vote). One function
 * word is allowed because salad contains the odd "a" or "on" by chance. Measured on the development
 * files: ≥ 16 in 97–98% of the HotFlip texts and in 3–4% of clean passages (tables and lists).
 */
export function longestContentRun(text: string): number {
  return contentRunOf(rawTokens(text)).length;
}

/** Where the longest content run is in `tokens`: [start, start + length). */
function contentRunOf(tokens: readonly string[]): { start: number; length: number } {
  const fn = tokens.map(isStopword);
  let best = { start: 0, length: 0 };
  let lo = 0;
  let inWindow = 0;
  for (let hi = 0; hi < fn.length; hi++) {
    if (fn[hi]) inWindow += 1;
    while (inWindow > 1) { if (fn[lo]) inWindow -= 1; lo += 1; }
    if (hi - lo + 1 > best.length) best = { start: lo, length: hi - lo + 1 };
  }
  return best;
}

/** Length of a content run at which it is token salad rather than prose (see `longestContentRun`'s measurement). */
export const TOKEN_SALAD_MIN_RUN = 16;

/**
 * How far into a salad run the prose before it may reach: the run holds at most one function word, and prose
 * after an optimisation attack's prefix opens with one ("… trulyerina the friends cast never went to London").
 */
export const SALAD_PROSE_EDGE = 6;

/**
 * The text's words (normalised raw tokens, space-joined) with its longest content run left out when that run is token
 * salad (≥ `minRun` words): the prose an optimisation-based attack appends its claim in. Texts without salad are
 * returned as their words. With `proseEdge`, a run that goes on into prose after it gives those words back: when the
 * run's one function word is among its last `SALAD_PROSE_EDGE` words, the prose begins there (salad holds function
 * words only by chance; an English clause opens with one). Without it the run swallows the claim's first words —
 * "the friends cast never went" — and with them a negation.
 */
export function withoutTokenSalad(text: string, minRun = TOKEN_SALAD_MIN_RUN, proseEdge = false): string {
  const tokens = rawTokens(text);
  const run = contentRunOf(tokens);
  if (run.length < minRun) return tokens.join(' ');
  let end = run.start + run.length;
  if (proseEdge && end < tokens.length) {
    const at = tokens.slice(run.start, end).findIndex(isStopword);
    if (at >= 0 && end - (run.start + at) <= SALAD_PROSE_EDGE) end = run.start + at;
  }
  return [...tokens.slice(0, run.start), ...tokens.slice(end)].join(' ');
}

/**
 * Does the text carry token salad at one of its edges: a content run of ≥ `minRun` words that opens or closes it?
 * An optimisation attack puts its adversarial tokens before the claim (HotFlip's prefix) or after it (GCG-style
 * suffixes); a genuine passage's long runs (lists of names, a table row) sit inside its prose.
 */
export function hasEdgeTokenSalad(text: string, minRun = TOKEN_SALAD_MIN_RUN): boolean {
  const tokens = rawTokens(text);
  const run = contentRunOf(tokens);
  return run.length >= minRun && (run.start === 0 || run.start + run.length === tokens.length);
}
