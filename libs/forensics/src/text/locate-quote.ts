/** A character range [start, end) of a text (UTF-16 offsets, as `String.prototype.slice` takes them). */
export interface TextSpan {
  start: number;
  end: number;
}

interface Token {
  word: string;
  start: number;
  end: number;
}

// Words: runs of letters, marks and digits; everything else (spaces, punctuation, quotes) separates them.
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
// What may follow a quote's last word and still belong to it: closing punctuation, quotes and brackets.
const TRAILING = /^[.!?;:,)\]"'’”»]+/u;
// An ellipsis in a quote ("… the spire was … painted") marks left-out words: each piece is located in turn.
const ELLIPSIS = /\s*(?:\.{3,}|…|\[\s*(?:\.{3}|…)\s*\])\s*/u;

function wordsOf(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD)) out.push({ word: m[0].normalize('NFKC').toLowerCase(), start: m.index!, end: m.index! + m[0].length });
  return out;
}

/** Words of the text the quote may skip over: at most this many, or a tenth of the quote's words, whichever is more. */
export const QUOTE_SKIP_MIN = 2;

/**
 * Where a quote of `text` lies in it, or undefined when it is not there. Tolerant of what a quote
 * changes without changing what it says: case, whitespace and punctuation (both are compared word by
 * word, NFKC, lower case), and a few words of the text left out of the quote (a citation marker
 * "[3]", the day of a date the offline judge drops, a word an LLM skipped): at most
 * max(QUOTE_SKIP_MIN, ⌈words/10⌉) of them, anywhere after the quote's first word. Every word of the quote must be found, in
 * order, so a paraphrase is not located (a span is never invented). An ellipsis in the quote splits
 * it into pieces located one after the other; the span runs from the first piece to the last. The
 * span ends after any closing punctuation that follows the last word (a sentence keeps its full stop).
 * The occurrence that skips the fewest words wins, the first of those on a tie. `from` starts the search at a character offset.
 */
export function locateQuote(text: string, quote: string, from = 0): TextSpan | undefined {
  const pieces = quote.split(ELLIPSIS).map(wordsOf).filter((p) => p.length > 0);
  if (pieces.length === 0) return undefined;
  const words = wordsOf(text);
  const first = words.findIndex((w) => w.start >= from);
  if (first < 0) return undefined;
  // The match that skips the fewest text words wins (a quote is usually exact); the first one on a tie.
  let best: { start: number; end: number; skipped: number } | undefined;
  for (let i = first; i < words.length && best?.skipped !== 0; i++) {
    let at = i;
    let start = -1;
    let end = -1;
    let skipped = 0;
    let ok = true;
    for (const piece of pieces) {
      const found = matchPiece(words, piece.map((w) => w.word), at, start < 0);
      if (!found) { ok = false; break; }
      if (start < 0) start = words[found.first].start;
      end = words[found.last].end;
      skipped += found.skipped;
      at = found.last + 1;
    }
    if (ok && (best === undefined || skipped < best.skipped)) best = { start, end, skipped };
  }
  if (!best) return undefined;
  const tail = TRAILING.exec(text.slice(best.end));
  return { start: best.start, end: best.end + (tail ? tail[0].length : 0) };
}

/**
 * Matches the quote's words in order from text word `at`: anchored there for the first piece, else the
 * piece may start a few words later (the ellipsis stood for them). Skipped text words are counted.
 */
function matchPiece(words: readonly Token[], piece: readonly string[], at: number, anchored: boolean): { first: number; last: number; skipped: number } | undefined {
  const budget = Math.max(QUOTE_SKIP_MIN, Math.ceil(piece.length / 10));
  const starts: number[] = [];
  if (anchored) starts.push(at);
  else for (let s = at; s < words.length; s++) if (words[s].word === piece[0]) starts.push(s);
  for (const s of starts) {
    if (words[s]?.word !== piece[0]) continue;
    let j = s + 1;
    let skipped = 0;
    let k = 1;
    for (; k < piece.length && j < words.length; j++) {
      if (words[j].word === piece[k]) k++;
      else if (++skipped > budget) break;
    }
    if (k === piece.length) return { first: s, last: j - 1, skipped };
  }
  return undefined;
}

/** Each sentence (or quote) located in `text` (`locateQuote`), merged; those not found give nothing. */
export function locateSentences(text: string, sentences: readonly string[]): TextSpan[] {
  return mergeSpans(sentences.map((x) => locateQuote(text, x)).filter((x): x is TextSpan => x !== undefined));
}

/** Sorted, overlapping or touching spans merged into one. */
export function mergeSpans(spans: readonly TextSpan[]): TextSpan[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: TextSpan[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

/** Do two spans share at least one character? */
export function spansOverlap(a: TextSpan, b: TextSpan): boolean {
  return a.start < b.end && b.start < a.end;
}
