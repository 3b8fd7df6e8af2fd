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

/** Jaccard similarity of two term sets: shared terms over all terms; 0 when either is empty. */
export function termJaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const t of a) if (b.has(t)) inter += 1;
  return inter / (a.size + b.size - inter);
}

/**
 * Abbreviations that do not end a sentence (lower case, without the dot): titles and honorifics
 * precede a name ("Dr. Who", "St. Louis", "Gen. Patton"), "v."/"vs." join the parties of a case
 * ("Craig v. Boren"), company suffixes sit inside names ("Paramount Pictures, Inc. v. …"). A split
 * there cuts an answer in two ("Craig v." | "Boren …") and the answer-bearing sentence in half.
 * English orthography, not fitted to any dataset; company suffixes can end a sentence and are
 * joined anyway (a longer sentence costs less than a cut name).
 */
const NON_FINAL_ABBREVIATIONS: ReadonlySet<string> = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'mt', 'ft', 'jr', 'sr', 'hon', 'fr', 'rev', 'pres',
  'gen', 'col', 'lt', 'capt', 'sgt', 'maj', 'adm', 'gov', 'sen',
  'v', 'vs', 'inc', 'ltd', 'co', 'corp',
]);
/** Abbreviations that precede a number: "No. 5", "Nos. 3", "Jan. 5, 1875", "pp. 12". */
const NUMBER_ABBREVIATIONS: ReadonlySet<string> = new Set(['no', 'nos', 'vol', 'pp', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec']);

/** Does the piece `prev` end on an abbreviation, so that `next` continues its sentence? */
function endsOnAbbreviation(prev: string, next: string): boolean {
  if (/(^|\s)\p{Lu}\.$/u.test(prev)) return true; // an initial: "J. R. R. Tolkien"
  if (/(^|\s)(\p{L}\.){2,}$/u.test(prev)) return true; // an initialism: "U.S. Supreme Court", "D.C."
  const word = (/(?:^|[\s(])(\p{L}+)\.$/u.exec(prev)?.[1] ?? '').toLowerCase();
  return NON_FINAL_ABBREVIATIONS.has(word) || (NUMBER_ABBREVIATIONS.has(word) && /^\d/.test(next));
}

/**
 * Split text into sentences on ". ", "! ", "? " and ";" before a word that is not lower-case, without splitting
 * decimals ("3.5"), initials ("J. R. R. Tolkien"), initialisms ("U.S. Army") or the usual
 * abbreviations that never end a sentence ("Craig v. Boren", "Dr. Who", "No. 5"). A line break is a space
 * (extracted Wikipedia formulas break lines mid-sentence: "(C\n6H\n10O\n5)").
 */
export function splitSentences(text: string): string[] {
  return joinAbbreviations(text, /(?<=[.!?;])\s+(?=[^a-z])/);
}

function joinAbbreviations(text: string, boundary: RegExp): string[] {
  const parts = text
    .replace(/\s+/g, ' ')
    .split(boundary)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const out: string[] = [];
  for (const part of parts) {
    const prev = out[out.length - 1];
    if (prev !== undefined && endsOnAbbreviation(prev, part)) out[out.length - 1] = `${prev} ${part}`;
    else out.push(part);
  }
  return out;
}

/**
 * The sentences a reader quotes from a text (the offline generator's answer; the harness's quoted answer):
 * as `splitSentences`, but whole across ";", and in a piece written without capitals also at ". " before a
 * lower-case word. An uncased tokenizer's output ("on ' i want to work for diddy , ' kimberly diaz triumphed .
 * winners who …") has no capital to start a sentence, so `splitSentences` keeps it whole; a spaced initial
 * ("u . s . army") still ends no sentence. The judge keeps `splitSentences` (its features are fitted on it).
 */
export function quoteSentences(text: string): string[] {
  return joinAbbreviations(text, /(?<=[.!?])\s+(?=[^a-z])/).flatMap((part) => (/\p{Lu}/u.test(part) ? [part] : splitUncased(part)));
}

function splitUncased(part: string): string[] {
  const out: string[] = [];
  for (const piece of part.split(/(?<=[.!?])\s+/)) {
    const prev = out[out.length - 1];
    if (prev !== undefined && /(^|\s)\p{L}\s?\.$/u.test(prev)) out[out.length - 1] = `${prev} ${piece}`; // "u . s ." / "j. k."
    else out.push(piece);
  }
  return out;
}

// Derivational and inflectional suffixes, longest first; a stem keeps at least 4 letters. Judge v14 added the
// agent and field suffixes (-ist, -ian, -ism, -ure, -acy, -ate, -man/-men, -y), so that a role is stated by its
// field and back: "guitarist" by "guitar", "musician" by "music", "cinematographer" by "cinematography",
// "architect" by "architecture", "the Confederacy" by "Confederate", "defenseman" by "defensemen". General
// English morphology, written from no question. v16 added the Latinate verb and adjective endings -ated, -ates,
// -ating and -atory, so "nominated" meets "nominations" and "discriminatory" meets "discrimination".
const SOFT_SUFFIXES = [
  'atory', 'ations', 'ation', 'ating', 'ated', 'ates', 'ments', 'ment', 'ings', 'ing', 'ness', 'ities', 'ity', 'ions', 'ion', 'ists', 'ist', 'ians', 'ian', 'isms', 'ism',
  'ure', 'acy', 'ate', 'ers', 'er', 'ors', 'or', 'men', 'man', 'ed', 'es', 'ly', 'al', 'ive', 'ic', 'y', 's', 'e',
];

/**
 * A crude morphological stem for matching a paraphrase's words to an answer's (issue 33): one common
 * English suffix after another is removed while at least 4 letters remain ("operational" → "operation" →
 * "operat" = "operations"; "creditor" → "credit"; "represents", "representation" → "represent").
 * Numbers and words of ≤ 4 letters are kept whole. Coarser than `lightStem` on purpose and only used for
 * the answer's terms, never for query coverage.
 */
export function softStem(term: string): string {
  if (/\d/.test(term)) return term;
  let out = term;
  for (let pass = 0; pass < 3; pass++) {
    const suffix = SOFT_SUFFIXES.find((x) => out.endsWith(x) && out.length - x.length >= 4);
    if (!suffix) break;
    out = out.slice(0, -suffix.length);
  }
  return out;
}
