/**
 * Answer normalisation for the ASR/ACC match (RAGForensics, arXiv 2504.21668, App. 8.2, Eq. 6–7,
 * which leaves "matches" open; GRADA, arXiv 2505.07546, §4.1, counts an attack as successful when
 * the answer appears as a substring of the response): lowercase, strip punctuation and extra
 * whitespace (the recipe of SQuAD's `normalize_answer`), extended so that numbers compare by value
 * and containment respects token boundaries.
 *
 * Choices (documented because the papers leave them open):
 * - Unicode: NFKD, combining marks removed ("Pokémon" = "pokemon"), "&" read as "and".
 * - Numbers: thousands separators are dropped ("1,000" = "1000"), decimals keep their point
 *   ("3.5"), trailing ".0" is dropped ("2.0" = "2"); number words zero–twenty and the tens
 *   (thirty … ninety) become digits ("five" = "5"). Compound number words ("twenty-five") become
 *   "20 5" on both sides, so they still match each other but not "25"; ordinals are left alone
 *   in `normalizeText` (see `tokenize` with `{ stem: true }` for "fourth" = "4").
 * - Apostrophes: a possessive "'s" is dropped ("Presley's" = "presley"), other apostrophes are
 *   removed inside the word ("can't" = "cant"), as SQuAD does.
 * - Articles: "a", "an", "the" are removed, as in SQuAD, so "The Beatles" matches "Beatles".
 *   A title that is only an article ("A") normalises to the empty string and matches nothing.
 * - Every other non-alphanumeric character separates tokens; whitespace collapses to one space.
 */

const NUMBER_WORDS: Readonly<Record<string, string>> = {
  zero: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7',
  eight: '8', nine: '9', ten: '10', eleven: '11', twelve: '12', thirteen: '13', fourteen: '14',
  fifteen: '15', sixteen: '16', seventeen: '17', eighteen: '18', nineteen: '19', twenty: '20',
  thirty: '30', forty: '40', fifty: '50', sixty: '60', seventy: '70', eighty: '80', ninety: '90',
};

const ORDINAL_WORDS: Readonly<Record<string, string>> = {
  first: '1', second: '2', third: '3', fourth: '4', fifth: '5', sixth: '6', seventh: '7',
  eighth: '8', ninth: '9', tenth: '10', eleventh: '11', twelfth: '12', thirteenth: '13',
  fourteenth: '14', fifteenth: '15', sixteenth: '16', seventeenth: '17', eighteenth: '18',
  nineteenth: '19', twentieth: '20',
};

const ARTICLES: ReadonlySet<string> = new Set(['a', 'an', 'the']);

// A number with optional grouping/decimal parts, or a run of letters/digits.
const RAW_TOKEN = /\d+(?:[.,]\d+)*(?![\p{L}\p{N}])|[\p{L}\p{N}]+/gu;

/** Canonical form of one numeric token: "1,000" → "1000", "3.50" stays "3.50", "2.0" → "2". */
export function normalizeNumberToken(raw: string): string[] {
  if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(raw)) raw = raw.replace(/,/g, '');
  // Any remaining comma is a list separator ("1,2"), not grouping.
  return raw.split(',').map((part) => {
    const m = /^(\d+)\.0+$/.exec(part);
    if (m) part = m[1];
    return part;
  });
}

/** Raw normalised tokens, articles kept (shared by `normalizeText` and `tokenize`). */
export function rawTokens(text: string): string[] {
  const prepared = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['’‘`]s\b/g, '')
    .replace(/(\p{L})['’‘`](\p{L})/gu, '$1$2');
  const out: string[] = [];
  for (const match of prepared.matchAll(RAW_TOKEN)) {
    const tok = match[0];
    if (/^\d/.test(tok)) out.push(...normalizeNumberToken(tok));
    else out.push(NUMBER_WORDS[tok] ?? tok);
  }
  return out;
}

/**
 * SQuAD-style normalisation with number handling (see module doc). Returns the normalised tokens
 * joined by single spaces; "" when nothing is left.
 *
 * @example normalizeText("The  Beatles' 1,000 Songs!") === "beatles 1000 songs"
 */
export function normalizeText(text: string): string {
  return rawTokens(text).filter((t) => !ARTICLES.has(t)).join(' ');
}

/** Ordinal word → digit string ("fourth" → "4"), or undefined. Used by `tokenize({ stem })`. */
export function ordinalValue(token: string): string | undefined {
  if (ORDINAL_WORDS[token]) return ORDINAL_WORDS[token];
  const m = /^(\d+)(st|nd|rd|th)$/.exec(token);
  return m ? m[1] : undefined;
}

/**
 * Remove bracketed reference markers ("[24]", "[3][4]", "[note 2]", "[update]", "[citation needed]") that
 * encyclopedic passages carry: a footnote number is not a statement, and "[24]" must not count
 * as stating the answer "24". The judge reads texts without them, and so do the audits' lexical filters
 * (`statesAnswer`).
 */
export function stripCitationMarkers(text: string): string {
  return text.replace(/\[(?:\d{1,4}|note\s+\d{1,3}|[a-z][a-z ]{0,24})\]/gi, ' ');
}

// 1–3 digits, then groups of exactly three digits each after ", ", " , " or a space; not inside a longer number.
const SPACED_GROUPS = /(?<![\p{N}.,])(\d{1,3})((?:(?: ?,)? \d{3})+)(?![\p{N}]|[.,]\d)/gu;

/**
 * Thousands groups separated by a space ("500, 000", or "35 , 000" with the comma spaced on both sides,
 * from a word-piece tokenizer's round trip; "25 000" in the SI / French style) joined into one number
 * ("500,000", "35,000", "25000"), which `rawTokens` then reads
 * as 500000 / 25000. Only for a caller that looks for an answer which IS such a number: in ordinary
 * text the same shape is usually a date and a count ("May 12, 200 protesters") or a list
 * ("120, 121 or 365"), which must stay two numbers.
 */
export function joinSpacedDigitGroups(text: string): string {
  return text.replace(SPACED_GROUPS, (_m, head: string, groups: string) => head + groups.replace(/ /g, ''));
}

// Month names (abbreviated or not), case-insensitive; "may" is matched too and `isMonthWord` keeps it only
// capitalised ("May", "MAY"): lower-case "may" is the verb.
const MONTH = String.raw`(?:\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?|\bmay\b)`;
const MONTH_DAY = new RegExp(String.raw`(${MONTH})(\s+)(\d{1,2})(?:st|nd|rd|th)?(?![\p{L}\p{N}]|[.,:]\d)`, 'giu');
const DAY_MONTH = new RegExp(String.raw`(?<![\p{L}\p{N}.,])(\d{1,2})(?:st|nd|rd|th)?(\s+(?:of\s+)?)(${MONTH})`, 'giu');
const ANY_MONTH = new RegExp(MONTH, 'iu');

/** A word the MONTH pattern matched is a month unless it is the verb "may". */
const isMonthWord = (word: string) => word !== 'may';

/**
 * The day of a calendar date removed ("October 24, 2018" → "October , 2018", "24th of October" → " October"):
 * for a caller looking for a bare number that is not a date ("24" episodes), the day of the month is
 * not a statement of it. A mis-decoded no-break space ("October\u00c2 24") is read as a space.
 */
export function dropDayOfMonth(text: string): string {
  return text
    .replace(/\u00c2(?=\s)/g, '')
    .replace(MONTH_DAY, (m, month: string, sp: string) => (isMonthWord(month) ? `${month}${sp}` : m))
    .replace(DAY_MONTH, (m, _day: string, sep: string, month: string) => (isMonthWord(month) ? `${sep}${month}` : m));
}

/** True when the text names a month ("May" only capitalised). */
export function hasMonthName(text: string): boolean {
  const m = ANY_MONTH.exec(text);
  return m !== null && isMonthWord(m[0]);
}
