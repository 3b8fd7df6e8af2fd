import { rawTokens, ordinalValue } from './normalize';
import { isStopword } from './stopwords';

export interface TokenizeOptions {
  /** Drop English stopwords (`ENGLISH_STOPWORDS`). Default false. */
  removeStopwords?: boolean;
  /**
   * Light stemming for term matching: ordinals become digits ("fourth", "4th" → "4"), and a
   * plural "-s"/"-es"/"-ies" is stripped from words longer than 3 letters ("episodes" →
   * "episode", "cities" → "city"; "ss"/"us"/"is" endings are kept: "class", "virus", "analysis").
   * Default false.
   */
  stem?: boolean;
}

/**
 * Strip a plural suffix (see `TokenizeOptions.stem`). Deliberately conservative: a wrong merge
 * would make a clean text look like it restates the query.
 */
export function lightStem(token: string): string {
  const ord = ordinalValue(token);
  if (ord !== undefined) return ord;
  if (token.length <= 3 || /\d/.test(token)) return token;
  if (token.endsWith('ies') && token.length > 4) return `${token.slice(0, -3)}y`;
  if (/(ches|shes|sses|xes|zes)$/.test(token)) return token.slice(0, -2);
  if (token.endsWith('s') && !/(ss|us|is)$/.test(token)) return token.slice(0, -1);
  return token;
}

/**
 * Simple word tokenizer over the normalised text (`normalizeText` rules: lower case, no
 * diacritics, numbers canonical, punctuation as separator). Articles are kept unless
 * `removeStopwords` is set.
 *
 * @example tokenize("The 4th season's episodes", { removeStopwords: true, stem: true }) → ["4", "season", "episode"]
 */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  let tokens = rawTokens(text);
  if (options.removeStopwords) tokens = tokens.filter((t) => !isStopword(t));
  if (options.stem) tokens = tokens.map(lightStem);
  return tokens;
}

/** Content terms: stopwords removed, light stemming on. The unit of "query term coverage". */
export function contentTerms(text: string): string[] {
  return tokenize(text, { removeStopwords: true, stem: true });
}

/**
 * Split text into sentences on ". ", "! ", "? ", ";" and line breaks, without splitting
 * decimals ("3.5") or common abbreviations of one capital letter ("J. R. R. Tolkien").
 */
export function splitSentences(text: string): string[] {
  const parts = text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?;])\s+(?=[^a-z])|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  // Re-join pieces that ended on a single-letter initial ("J.").
  const out: string[] = [];
  for (const part of parts) {
    const prev = out[out.length - 1];
    if (prev !== undefined && /(^|\s)\p{Lu}\.$/u.test(prev)) out[out.length - 1] = `${prev} ${part}`;
    else out.push(part);
  }
  return out;
}
