import type { Label } from '../ragforensics/traceback-loop';
import { containsAnswer } from '../text/answer-match';
import { dropDayOfMonth, hasMonthName, joinSpacedDigitGroups, normalizeText, rawTokens, stripCitationMarkers } from '../text/normalize';
import { locateSentences, type TextSpan } from '../text/locate-quote';
import { isStopword } from '../text/stopwords';
import { longestContentRun, withoutTokenSalad } from '../text/token-salad';
import { contentTerms, softStem, splitSentences, termJaccard } from '../text/tokenizer';
import fitted from './offline-judge.fitted.json';
import { explainVerdict, quote } from './offline-judge.explain';
import { OFFLINE_JUDGE_FEATURES, type OfflineJudgeEvidence, type OfflineJudgeFeatures, type OfflineJudgeInput, type OfflineJudgeWeights } from './offline-judge.features';
import { OfflineJudgeParams, validateOfflineJudgeParams } from './offline-judge.params';


export interface OfflineJudgeResult {
  label: Label;
  /** Suspicion in [0, 1]; YES at ≥ params.yesThreshold. */
  score: number;
  signals: Record<string, number | boolean | string>;
  /** Plain-English reasons an admin can read. */
  explanation: string;
  /** Where the claim is (issue 35): [start, end) ranges of `input.text` of `claimSentences`, merged; none for a NO or when not located. */
  spans: TextSpan[];
}

export { OFFLINE_JUDGE_FEATURES, type OfflineJudgeEvidence, type OfflineJudgeFeatures, type OfflineJudgeInput, type OfflineJudgeWeights } from './offline-judge.features';

/**
 * Words that hedge a number ("approximately 25,000"): left out of a numeric answer's terms, so a text that
 * writes the same number with another hedge, or none, states it. ("about", "over", "some" are stopwords already.)
 */
const NUMBER_HEDGES: ReadonlySet<string> = new Set(['approximately', 'approx', 'around', 'roughly', 'nearly', 'almost', 'circa', 'ca', 'estimate', 'exactly', 'precisely', 'close', 'upward']);

/**
 * The rules added in issue 33, each switchable so the fit script can measure what each one changes on the
 * families it was not written from (scripts/judge-rule-ablation.ts). The judge always runs with all of them.
 */
export interface JudgeRules {
  /** Denials without a negation particle ("lacks", "false", "absent"); "not only" is no denial. */
  polarLexicon: boolean;
  /** A yes/no stance read over the whole text: any query-restating sentence that denies makes the text's stance 'no'. */
  polarWholeText: boolean;
  /** Paraphrase: answer terms matched on a morphological stem ("owes" = "owed" = "owing"). */
  softTerms: boolean;
  /** Near-misses: another given name with the same surname, another month, another magnitude do not state the answer. */
  nearMiss: boolean;
  /**
   * Rivals a sentence corrects are no listing: "not Bob Dylan, but Elton John" asserts the answer against
   * the name it denies; a sentence's opening word before a comma ("Interestingly, …") is a discourse word.
   */
  correctedRivals: boolean;
  /**
   * A yes/no stance is read from the sentence's prose, its token salad (`withoutTokenSalad`) left out: an
   * optimisation attack's adversarial prefix holds "nor", "never", "differ" by chance, and they deny nothing.
   */
  saladFreeStance: boolean;
  /** "Are X and Y both …?" is answered 'yes' only by a text that names both X and Y (at least half of each name's own terms). */
  bothNamed: boolean;
  /**
   * A sentence that asserts sameness ("both", "the same", "share") is denied only by a negation particle or a
   * denial word, not by a contrast word in another of its clauses ("despite their distinct looks, both belong to
   * the same family", "… share the same neighborhood, a visit without travelling far").
   */
  sameAffirms: boolean;
  /** "Are X and Y both …?" is answered 'no' by a text that names both and sets them against each other ("X is …; Y, however, …"). */
  pairContrast: boolean;
  /**
   * The pair rule reads "on the other hand" (articles are normalised away, so the v17 pattern never matched it),
   * "conversely", "although" and "though" as contrast too: general English connectives, not a dataset's.
   */
  pairConnectives: boolean;
  /**
   * A stance is read from the prose after a salad prefix with the prose's first words given back (`withoutTokenSalad`'s
   * `proseEdge`): the salad run had swallowed them, a negation with them.
   */
  saladEdge: boolean;
  /** A name of function words ("For Against", "The Who") is still one of the two names of "Are X and Y both …?", read by its words. */
  pairFunctionWordNames: boolean;
  /**
   * A long yes/no question (≥ `LONG_POLAR_QUESTION` query terms) is restated by a passage with `LONG_POLAR_RESTATED` of its
   * terms, not only by half: "Kaiser Ventures corporation has no ties to shipbuilding" restates "Was Kaiser Ventures
   * corporation founded by an American industrialist who became known as the father of modern American shipbuilding?"
   * with 4 of its 11 terms — a sentence carries the subject and the claim, not every qualifier of a long question.
   */
  polarLongQuestion: boolean;
  /**
   * "Are X and Y both P?" is answered 'no' by a text that names both in sentences of their own and states P (the
   * question's terms outside the two names) of one of them only: "X is a rock musician. Y is a rugby player." — a
   * denial by predicate, without a negation or a contrast word. Not for "the same …" / "different …" questions,
   * whose P is the comparison itself.
   */
  pairPredicate: boolean;
  /**
   * An answer that opens with a yes or a no and goes on ("No, the film is not based on a true story.") takes that
   * stance: a text that does not repeat the clause's words but restates the question with the same stance states it
   * (`leadStance`).
   */
  polarLead: boolean;
  /**
   * A Roman numeral after a capitalised word is a number ("World War I", "Henry VIII", "Super Bowl LII"): a piece
   * states such an answer only with the same numeral after the same word, as digits are mandatory ("World War II"
   * does not state "World War I"; the pronoun "I" is a stopword, so without this the numeral was never checked).
   */
  romanNumerals: boolean;
  /**
   * In a choice question ("a left-hand or right-hand batsman?", "the Seven Days Battles or the Battle of Manila?"),
   * the answer's terms that the other option shares ("hand", "battle") do not tell the options apart: they are not
   * the answer's distinctive terms, so a piece holding only them does not partly state it.
   */
  choiceShared: boolean;
  /**
   * A place written "Town, Region" ("Albany, New York", "Biloxi, Mississippi, USA"): the first part names the place,
   * the rest only where it lies. A piece naming the region alone does not partly state the place; a piece naming the
   * place without its region does (support `partialSupportMin`, as a name without its title).
   */
  placeFirstPart: boolean;
  /**
   * The reported answer is read without an assistant's framing (`answerClaim`): a RAG app reports the answer it served,
   * and a served answer says where it comes from and how sure it is ("Based on the provided context, …", "As of my last
   * update, …", "The answer is …", "… according to the documents.") and may be a numbered list. Those words are no part of
   * the claim: read as answer terms they are terms no text states, and a list's "1." is a number every text must hold.
   */
  answerFraming: boolean;
  /**
   * A reported answer that is a sentence quoted from one of the event's texts (an extractive generator serves its top
   * context back) is read as the part of it that answers the question (`quotedAnswerSpan`): the one name run, or the
   * one number, of the type the question's wh-word asks for. The rest of the quoted sentence is the text's context,
   * not the claim — its other planted texts word that context differently, and a date beside the claim is no part of it.
   */
  quotedSpan: boolean;
  /**
   * A quoted sentence's candidate spans (`quotedAnswerSpan`) are read clause by clause: a name run ends at a comma,
   * colon, semicolon, bracket, quotation mark or dash ("Surprisingly, Charles Darwin …" is not the name "Surprisingly
   * Charles Darwin"; "David Gilmour, Pink Floyd's singer" holds two names), and a name the sentence denies ("not by
   * Muhammad Yunus, but by …", "rather than New York") is no candidate: it is the claim's rival, not the claim.
   */
  spanClauses: boolean;
  /**
   * A quoted sentence answering a choice question ("Who was born earlier, Emma Bull or Virginia Woolf?") is read as the
   * one option it names ("Emma Bull, the fantasy author, was born in 1954." → "Emma Bull"); a sentence naming both
   * options is read whole. The options are the question's own words, so the wh-word's reading never finds them.
   */
  spanChoice: boolean;
  /**
   * A quoted sentence holding no single span of the asked type may mark its answer with quotation marks ("the term used
   * for it is 'anarchy'", "the currency named 'pound'"): for a what/which question, the one quoted phrase of at most
   * six words that is not the question's own and not denied ("rather than 'IV'") is the span.
   */
  spanQuoted: boolean;
  /**
   * The word that opens a quoted sentence is capitalised whatever it is ("However, …", "Russia emerged victorious …"):
   * it is a name candidate when one of the event's texts writes it capitalised after a lower-case word ("… won by
   * Russia"), which an adverb or a common noun never is.
   */
  spanOpener: boolean;
  /**
   * A yes/no question about two or more things ("Are X and Y both …?", "do all …", "are there many …") is denied by
   * an exclusive word ("only 888 7th Avenue is used for real estate", "only one original manuscript exists"): only,
   * solely, exclusively, sole — unless negated ("not only … but also" affirms). A question about a difference is left
   * to the sameness reading (`polarStanceIsNo`).
   */
  polarExclusive: boolean;
  /**
   * A quoted sentence holding several candidate spans of the asked type ("Adam Driver, known for Kylo Ren, plays …") is
   * read as the one the served texts state at least twice as often as any other, in two texts at least: a planted
   * group repeats its answer in every text it got served, while a name beside it is the quoting text's own context.
   * Counted over the texts served (`context`), not over everything the traceback retrieves later: there the genuine
   * texts outnumber the planted ones, and a topic word or the correct answer would win.
   */
  spanPeers: boolean;
  /**
   * A quoted sentence with no capital letter (an uncased tokenizer's output: HotFlip and corpus-poisoning texts are
   * written lower-case, so the name reading finds nothing) is read as the longest phrase of up to four content words,
   * not the question's own, that the served texts hold at least twice as often as any phrase outside it (in two texts
   * at least): the planted group repeats its answer, the rest of each sentence is worded anew. A lower-case date with a
   * space before its comma ("december 1 , 2019") is one date there.
   */
  spanUncased: boolean;
}
export const ALL_RULES: Readonly<JudgeRules> = Object.freeze({ polarLexicon: true, polarWholeText: true, softTerms: true, nearMiss: true, correctedRivals: true, saladFreeStance: true, bothNamed: true, sameAffirms: true, pairContrast: true, pairConnectives: true, saladEdge: true, pairFunctionWordNames: true, polarLongQuestion: true, pairPredicate: true, polarLead: true, romanNumerals: true, choiceShared: true, placeFirstPart: true, answerFraming: true, quotedSpan: true, spanClauses: true, spanChoice: true, spanQuoted: true, spanOpener: true, polarExclusive: true, spanPeers: true, spanUncased: true });
/** Every rule off (the v10 judge's reading): derived from ALL_RULES, so a new rule cannot be missed here. */
export const NO_RULES: Readonly<JudgeRules> = Object.freeze(Object.fromEntries(Object.keys(ALL_RULES).map((r) => [r, false])) as unknown as JudgeRules);

/** Content-term Jaccard at which a supporting peer counts as a close copy (`closeCopies`). */
const CLOSE_COPY_MIN = 0.5;

/**
 * Logistic weights of the evidence score: fitted by L1 logistic regression on the candidate texts of
 * every development file (texts that state t only), features and settings chosen by
 * leave-one-file-out — scripts/fit-offline-judge.ts (apps/eval/src/judge-fit), stored in
 * offline-judge.fitted.json with its leave-one-file-out numbers. A feature without a weight counts 0.
 */
export const SCORE_WEIGHTS: Readonly<OfflineJudgeWeights> = Object.freeze({ ...(fitted.weights as OfflineJudgeWeights) });

/** Model name recorded with every offline verdict. */
export const OFFLINE_JUDGE_MODEL = 'offline-evidence-v29';

// Removed (issue 13): FRAMING_CUES, a regex of PoisonedRAG's framing phrases ("in an alternate
// universe", "contrary to popular belief", …) and its `framing` feature. It was written from the
// wording of one attack's generator on the development files and never shown to help on a file it
// was not written from; a rewrite (GPT-4/Gemini variants) or another attack simply does not use
// those phrases, while benign encyclopedic text sometimes does ("contrary to", "surprisingly").

/** Answers of at least this many normalised tokens, stated verbatim, decide YES on their own. */
const LONG_ANSWER_TOKENS = 6;

/** Minimum query-term coverage of a sentence for it to take a yes/no stance on the question. */
export const POLAR_MIN_COVERAGE = 0.5;
/** A yes/no question of at least this many query terms is long (`polarLongQuestion`)… */
const LONG_POLAR_QUESTION = 9;
/** …and restated by a passage holding this many of them. */
const LONG_POLAR_RESTATED = 4;

/** Does a passage with these terms restate the question's proposition (for a yes/no stance)? */
function restatesProposition(queryTerms: readonly string[], have: ReadonlySet<string>, rules: JudgeRules): boolean {
  if (coverage(queryTerms, have) >= POLAR_MIN_COVERAGE) return true;
  return rules.polarLongQuestion && queryTerms.length >= LONG_POLAR_QUESTION && queryTerms.filter((t) => have.has(t)).length >= LONG_POLAR_RESTATED;
}

const POLAR_ANSWERS: Readonly<Record<string, 'yes' | 'no'>> = { yes: 'yes', no: 'no', true: 'yes', false: 'no' };

/**
 * The stance an answer opens with when it goes on after it ("No, the film is not based on a true story.", "Yes, she
 * recorded it in 1994."): the yes/no word followed by punctuation and more words. Undefined otherwise (a bare "yes"
 * is `polarAnswer`'s), and for a mixed answer that goes on to the other stance ("yes, Skin Yard; no, Ostava").
 */
export function leadStance(answer: string): 'yes' | 'no' | undefined {
  const m = /^\s*(yes|no|true|false)\s*[,.;:!]\s*\S/i.exec(answer);
  if (!m) return undefined;
  // A mixed answer ("yes, Skin Yard; no, Ostava": another yes or no standing as an answer after a clause break) takes no
  // one stance. "true" / "false" inside the clause are adjectives ("not based on a true story"), not answers.
  const stance = POLAR_ANSWERS[m[1]!.toLowerCase()];
  const other = stance === 'yes' ? 'no' : 'yes';
  return new RegExp(`[,;.:]\\s*${other}\\s*[,;.:!]`, 'i').test(answer.slice(m[0].length - 1)) ? undefined : stance;
}

// An assistant's framing around a served answer (`answerClaim`): general English of answering from sources, written
// from no dataset's question or answer. Each opens (or, for the attribution, closes) the answer and ends at its comma.
const SOURCE_NOUNS = String.raw`(?:context|contexts|documents?|passages?|texts?|sources?|information|knowledge(?: base)?|search results?|results|data|articles?|excerpts?|records?|materials?)`;
const FRAMING_OPENERS: readonly RegExp[] = [
  new RegExp(String.raw`^(?:based on|according to|from|given|per|judging (?:by|from))\s+(?:the|this|these|my|your|our)?\s*(?:provided|given|available|retrieved|above|following|supplied|attached|relevant)?\s*${SOURCE_NOUNS}\b[^,:;]{0,40}[,:;]\s*`, 'i'),
  /^as of (?:my|the|this)\s+(?:last|latest|most recent|current|recent)?\s*(?:update|knowledge(?: cut-?off)?|training(?: data)?|information|data)\b[^,]{0,40},\s*/i,
  /^(?:the|my|our)\s+(?:short |final |correct |best |likely )?answer\s+(?:to (?:the|your|this) question\s+)?(?:is|would be)\s*[:,]?\s*/i,
  /^(?:short |final )?answer\s*:\s*/i,
  /^(?:i think|i believe|it seems|it appears|i would say)\s+(?:that\s+)?/i,
  /^(?:sure|certainly|okay|ok)\s*[,!.]\s*/i,
];
const FRAMING_CLOSER = new RegExp(String.raw`[,;]?\s*\(?(?:according to|based on|as (?:stated|mentioned|described) in|as per|per)\s+(?:the|these|my)?\s*(?:provided|given|retrieved|above)?\s*${SOURCE_NOUNS}\)?\s*([.!]?)\s*$`, 'i');
const LIST_MARKER = /^\s*(?:\d{1,2}[.)]|[-*\u2022])\s+/gm;

/**
 * The claim of a reported answer (`JudgeRules.answerFraming`): the answer with an assistant's framing taken off — the
 * openers of FRAMING_OPENERS (repeatedly: "Sure. Based on the context, the answer is …"), an attribution to the sources
 * at its end, and list markers at the start of its lines. What is left is returned as it was written (case, the
 * stance of "No, …"); an answer that is nothing but framing is returned whole.
 */
export function answerClaim(answer: string): string {
  let out = answer.replace(LIST_MARKER, '').trim();
  for (let changed = true; changed;) {
    changed = false;
    for (const re of FRAMING_OPENERS) {
      const next = out.replace(re, '');
      if (next !== out) { out = next.trim(); changed = true; }
    }
  }
  out = out.replace(FRAMING_CLOSER, '$1').trim();
  return normalizeText(out) === '' ? answer : out;
}

/** What a question's wh-words ask for (`quotedAnswerSpan`): a number, or a name (a run of capitalised words). */
function askedType(query: string): 'number' | 'name' | 'either' | undefined {
  const q = ` ${query.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, ' ').replace(/\s+/g, ' ')} `;
  if (/ how (many|much|long|old|far|tall|big|high|often) | what (year|percentage|percent|number|age) | which year | when /.test(q)) return 'number';
  if (/ (who|whom|whose|where) /.test(q)) return 'name';
  if (/ (what|which) /.test(q)) return 'either';
  return undefined;
}

const MONTHS = 'January|February|March|April|May|June|July|August|September|October|November|December';
const DATE_SPAN_SOURCE = String.raw`\b(?:(?:${MONTHS})\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}\s+(?:${MONTHS}),?\s+\d{4}|(?:${MONTHS})\s+\d{4})\b`;
const DATE_SPAN = new RegExp(DATE_SPAN_SOURCE, 'g');
/** `spanUncased`: a date in an uncased tokenizer's output ("december 1 , 2019": no capital, a space before the comma). */
const UNCASED_DATE_SPAN = new RegExp(DATE_SPAN_SOURCE.replace(/,\?/g, '\\s?,?'), 'gi');

/** Words that deny the name after them in a quoted sentence (`spanClauses`), and the words that may stand between. */
const DENYING_WORDS: ReadonlySet<string> = new Set(['not', 'never', 'nor']);
const SPAN_LINKS: ReadonlySet<string> = new Set(['by', 'in', 'at', 'on', 'of', 'from', 'with', 'as', 'to', 'for', 'the', 'a', 'an']);

/** Lower-case words that may sit inside a name run ("Bank of England", "Leonardo da Vinci"). */
const NAME_JOINERS: ReadonlySet<string> = new Set(['of', 'the', 'de', 'da', 'del', 'der', 'van', 'von', 'la', 'le', 'du', 'y']);

/** `spanPeers`: the texts that must state the chosen candidate, and how many times more than any other candidate. */
const SPAN_PEERS_MIN = 2;
const SPAN_PEERS_RATIO = 2;
/** `spanUncased`: the longest phrase read from an uncased sentence. */
const SPAN_UNCASED_MAX_WORDS = 4;

/**
 * The span of a quoted sentence that answers the question (`JudgeRules.quotedSpan`), or undefined. Only for an answer
 * of ≥ LONG_ANSWER_TOKENS words found verbatim in one of `texts` (the texts served, or the judged text and its peers): a sentence served
 * back from the context. Candidates are the sentence's name runs (capitalised words, joiners inside, not the one word
 * that opens the sentence) and its numbers, less those made only of the question's own terms; the question's wh-word
 * chooses the type. Exactly one candidate of that type is the span — or, for numbers, the one followed within two
 * words by a question term ("24 episodes" for "how many episodes …"). With several candidates, the one the texts state
 * clearly more often (`spanPeers`); a sentence with no capital letter, the phrase the texts repeat (`spanUncased`).
 * Otherwise the sentence is read whole, as before.
 */
export function quotedAnswerSpan(query: string, answer: string, texts: readonly string[], rules: Pick<JudgeRules, 'spanClauses' | 'spanChoice' | 'spanQuoted' | 'spanOpener' | 'spanPeers' | 'spanUncased'> = ALL_RULES): string | undefined {
  if (normalizeText(answer).split(' ').length < LONG_ANSWER_TOKENS) return undefined;
  // How many of the texts state a phrase on token boundaries (`containsAnswer`), each text normalised once: the
  // candidates below are counted against every text.
  const padded = texts.map((t) => ` ${normalizeText(t)} `);
  const heldBy = (phrase: string) => {
    const a = normalizeText(phrase);
    return a === '' ? 0 : padded.filter((t) => t.includes(` ${a} `)).length;
  };
  if (heldBy(answer) === 0) return undefined;
  const type = askedType(query);
  const clauses = rules.spanClauses;
  // `spanChoice`: a choice question ("…, X or Y?") is answered by naming one of its options, whatever its wh-word.
  const choice = rules.spanChoice && /\sor\s/i.test(query);
  if (type === undefined && !choice) return undefined;
  const queryTerms = new Set(contentTerms(query));
  const own = (s: string) => contentTerms(s).some((t) => !queryTerms.has(t));
  // A date is one number: "April 15, 2015", "15 April 2015", "April 2015" (the month's name and its day and year).
  const uncased = rules.spanUncased && !/\p{Lu}/u.test(answer);
  const dated = answer.replace(uncased ? UNCASED_DATE_SPAN : DATE_SPAN, (d) => d.replace(/[\s,]+/g, '_'));
  const matches = [...dated.matchAll(/[\p{L}\p{N}][\p{L}\p{N}_'’.,-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu)];
  const words = matches.map((m) => m[0]);
  // `spanClauses`: a clause break after a word (comma, colon, semicolon, bracket, quotation mark, dash) ends a name run.
  const breakAfter = matches.map((m) => clauses && /^\s*[,;:()[\]"“”‘’'—–]/.test(dated.slice(m.index! + m[0].length)));
  const numbers: { text: string; at: number }[] = [];
  const names: string[] = [];
  const options: string[] = [];
  let run: string[] = [];
  // `spanOpener`: a text writes the word capitalised after a lower-case word (a comma or semicolon may stand between).
  const writtenAsName = (w: string) => {
    // The pronoun "I" (and "I'm", "I've", …) is capitalised wherever it stands.
    if (/^I(?:['’]\p{L}+)?$/u.test(w)) return false;
    const after = new RegExp(String.raw`\p{Ll}[,;]?\s+${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\p{L}\p{N}])`, 'u');
    return texts.some((t) => after.test(t));
  };
  // `spanClauses`: the name starting at word `start` is denied — "not", "never", "nor" or "rather than" / "instead of"
  // before it, with at most prepositions and articles between ("not by Muhammad Yunus", "rather than the standard IV").
  const deniedAt = (start: number) => {
    for (let k = start - 1; k >= Math.max(0, start - 4); k -= 1) {
      const w = words[k].toLowerCase();
      if (DENYING_WORDS.has(w) || ((w === 'than' || w === 'of') && /^(?:rather|instead)$/i.test(words[k - 1] ?? ''))) return true;
      if (!SPAN_LINKS.has(w)) return false;
    }
    return false;
  };
  const closeRun = (end: number) => {
    while (run.length && NAME_JOINERS.has(run[run.length - 1])) run.pop();
    const start = end - run.length;
    if (choice && run.length && !(clauses && deniedAt(start)) && choiceRival(query, run.join(' ')) !== undefined) options.push(run.join(' '));
    const lone = start === 0 && run.length === 1 && !(rules.spanOpener && writtenAsName(run[0]));
    if (run.length && !lone && !(clauses && deniedAt(start)) && own(run.join(' '))) names.push(run.join(' '));
    run = [];
  };
  words.forEach((w, i) => {
    if (/^\d[\d,.]*$/.test(w) || /_/.test(w)) {
      closeRun(i);
      const n = w.replace(/[.,]$/, '').replace(/_/g, ' ').replace(/(\p{L}) (\d{1,2}) (\d{4})/u, '$1 $2, $3');
      if (!queryTerms.has(contentTerms(n)[0] ?? n)) numbers.push({ text: n, at: i });
      return;
    }
    if (/^\p{Lu}/u.test(w) || (run.length > 0 && NAME_JOINERS.has(w))) {
      run.push(w.replace(/[.,]$/, ''));
      if (breakAfter[i]) closeRun(i + 1);
    } else closeRun(i);
  });
  closeRun(words.length);
  const uniqueNames = [...new Set(names)];
  // `spanPeers`: of several candidates of the asked type, the one the texts state at least twice as often as any other
  // (and in two texts at least).
  const tieBreak = (cands: readonly string[]): string | undefined => {
    if (!rules.spanPeers || cands.length < 2) return undefined;
    const held = cands.map((c) => ({ c, n: heldBy(c) })).sort((a, b) => b.n - a.n);
    return held[0].n >= SPAN_PEERS_MIN && held[0].n > held[1].n * SPAN_PEERS_RATIO ? held[0].c : undefined;
  };
  if (choice) {
    const named = [...new Set(options)];
    if (named.length === 1) return named[0];
    if (named.length > 1 || type === undefined) return undefined;
  }
  const uniqueNumbers = [...new Set(numbers.map((n) => n.text))];
  if (type !== 'name' && uniqueNumbers.length === 1 && (type === 'number' || uniqueNames.length === 0)) return uniqueNumbers[0];
  if (type === 'number' && uniqueNumbers.length > 1) {
    const near = numbers.filter((n) => words.slice(n.at + 1, n.at + 3).some((w) => contentTerms(w).some((t) => queryTerms.has(t))));
    const nearUnique = [...new Set(near.map((n) => n.text))];
    return nearUnique.length === 1 ? nearUnique[0] : tieBreak(nearUnique.length ? nearUnique : uniqueNumbers);
  }
  if (type !== 'number' && uniqueNames.length === 1 && (type === 'name' || uniqueNumbers.length === 0)) return uniqueNames[0];
  if (rules.spanQuoted && type === 'either') {
    // A phrase in quotation marks: the opening mark after a space or bracket, the closing one before punctuation or a
    // space, no space just inside either ("andre ' s '" of a tokenizer's round trip is no quotation).
    const marked = [...answer.matchAll(/(?:^|[\s(])["“'‘]([^"“”'‘’\s](?:[^"“”'‘’]{0,58}[^"“”'‘’\s])?)["”'’](?=[\s,.;:)!?]|$)/gu)]
      .filter((m) => !normalizeText(answer.slice(0, m.index!)).split(' ').slice(-3).some((w) => DENYING_WORDS.has(w) || w === 'than'))
      .map((m) => m[1].replace(/[,.;:!?]+$/, ''))
      .filter((phrase) => phrase.split(/\s+/).length <= 6 && own(phrase));
    const unique = [...new Set(marked)];
    if (unique.length === 1) return unique[0];
  }
  const picked = tieBreak(type === 'name' ? uniqueNames : type === 'number' ? uniqueNumbers : [...uniqueNames, ...uniqueNumbers]);
  if (picked !== undefined || !uncased) return picked;
  return repeatedPhrase(answer, queryTerms, heldBy);
}

/** `spanUncased`: the longest phrase (≤ 4 words) an uncased quoted sentence shares with the texts, if clearly the most shared. */
function repeatedPhrase(sentence: string, queryTerms: ReadonlySet<string>, heldBy: (phrase: string) => number): string | undefined {
  const words = normalizeText(sentence).split(' ').filter(Boolean);
  // A phrase's words: no function word, not all the question's own terms.
  const usable = words.map((w) => !isStopword(w) && !/^\d+$/.test(w));
  const phrases = new Map<string, number>();
  for (let i = 0; i < words.length; i++) {
    for (let n = 1; n <= SPAN_UNCASED_MAX_WORDS && i + n <= words.length; n++) {
      if (!usable[i + n - 1]) break;
      const phrase = words.slice(i, i + n).join(' ');
      if (phrases.has(phrase) || contentTerms(phrase).every((t) => queryTerms.has(t))) continue;
      phrases.set(phrase, heldBy(phrase));
    }
  }
  const ranked = [...phrases].sort((a, b) => b[1] - a[1] || b[0].length - a[0].length);
  const best = ranked[0];
  if (!best || best[1] < SPAN_PEERS_MIN) return undefined;
  // Its own words and sub-phrases are held by the same texts; every other phrase must be held by under half as many.
  const inside = (p: string) => ` ${best[0]} `.includes(` ${p} `) || ` ${p} `.includes(` ${best[0]} `);
  const rival = ranked.find(([p]) => !inside(p));
  return !rival || best[1] > rival[1] * SPAN_PEERS_RATIO ? best[0] : undefined;
}

/** The stance a yes/no answer takes ('yes' for yes/true, 'no' for no/false), undefined for any other answer. */
export function polarAnswer(answer: string): 'yes' | 'no' | undefined {
  return POLAR_ANSWERS[normalizeText(answer)];
}

// Negation and contrast cues: a sentence carrying one denies the query's proposition.
const NEGATION_CUES: ReadonlySet<string> = new Set([
  'not', 'no', 'never', 'neither', 'nor', 'none', 'nothing', 'cannot', 'without', 'instead', 'rather',
  'different', 'differ', 'differs', 'distinct', 'separate', 'separately', 'unlike', 'unrelated',
]);

/**
 * Words that deny without a negation particle (issue 33: "X surprisingly lacks Y", "the claim is false",
 * "Y was absent"): verbs of lacking, failing and denying, adjectives of falsehood and absence. General
 * English, written from no development question.
 */
const DENIAL_WORDS: ReadonlySet<string> = new Set([
  'lack', 'lacks', 'lacked', 'lacking', 'absent', 'absence', 'fail', 'fails', 'failed', 'unable', 'deny', 'denies', 'denied',
  'refute', 'refutes', 'refuted', 'false', 'untrue', 'incorrect', 'myth', 'misconception', 'devoid', 'nonexistent', 'impossible', 'neither',
]);

function hasNegation(rawTokens: readonly string[], rules: JudgeRules = ALL_RULES): boolean {
  // "isn't" → "isnt" after normalisation; "n't" contractions end in "nt" and are verbs. The stem is
  // the verb with "n't" taken off, irregular ones included: "can't" → "ca|nt", "won't" → "wo|nt",
  // "shan't" → "sha|nt" ("can" stays for the rare "cann't").
  return rawTokens.some((t, i) => {
    if (rules.polarLexicon) {
      // A negation of a negation affirms: "not only … but also", "no doubt", "nothing but", "without exception",
      // "no exceptions", "not uncommon".
      const next = rawTokens[i + 1] ?? '';
      if ((t === 'not' && (next === 'only' || /^un/.test(next))) || ((t === 'no' || t === 'without') && /^(doubt|exception|exceptions|question)$/.test(next)) || (t === 'nothing' && next === 'but')) return false;
      if (DENIAL_WORDS.has(t)) return true;
    }
    return NEGATION_CUES.has(t) || /^(is|are|was|were|do|does|did|has|have|had|ca|can|could|wo|would|sha|should|must|might|need|ai)nt$/.test(t);
  });
}

const CONTRAST_CUES: ReadonlySet<string> = new Set(['different', 'differ', 'differs', 'distinct', 'separate', 'separately', 'unlike', 'unrelated']);
const SAME_CUES: ReadonlySet<string> = new Set(['same', 'identical', 'shared', 'alike', 'similar']);
/** Words asserting that two things agree (`sameAffirms`), and the contrast words such a sentence may hold in another clause. */
const AFFIRMS_SAME: ReadonlySet<string> = new Set(['both', 'same', 'share', 'shares', 'shared', 'identical', 'alike']);
const CONTRAST_ONLY: ReadonlySet<string> = new Set([...CONTRAST_CUES, 'without', 'instead', 'rather']);

/**
 * Does a sentence deny the query's proposition? Normally: it carries a negation/contrast cue. When
 * the question itself asks about a difference ("Do X and Y belong to different genres?"), a
 * contrast word affirms it and a sameness word ("the same genre") denies it. A sentence asserting sameness
 * ("both", "the same") is denied by a negation particle only (`sameAffirms`).
 */
function polarStanceIsNo(rawTokens: readonly string[], queryAsksContrast: boolean, rules: JudgeRules = ALL_RULES): boolean {
  if (!queryAsksContrast && rules.sameAffirms && rawTokens.some((t) => AFFIRMS_SAME.has(t))) return hasNegation(rawTokens.filter((t) => !CONTRAST_ONLY.has(t)), rules);
  if (!queryAsksContrast) return hasNegation(rawTokens, rules);
  const core = hasNegation(rawTokens.filter((t) => !CONTRAST_CUES.has(t)), rules);
  return rawTokens.some((t) => SAME_CUES.has(t)) ? !core : core;
}

function termSet(text: string): Set<string> {
  return new Set(contentTerms(text));
}

function coverage(queryTerms: readonly string[], terms: ReadonlySet<string>): number {
  if (queryTerms.length === 0) return 0;
  return queryTerms.filter((t) => terms.has(t)).length / queryTerms.length;
}

/**
 * How strongly one piece of text states the answer: 1 = normalised match; otherwise, for a
 * multi-token answer, the share of its distinctive terms present (0 below `partialMin`).
 * Distinctive = the answer's content terms that are not query terms (restating the query is not
 * stating the answer: "royal" in "Royal Shadows" for a question about the royal family). Numbers
 * are mandatory: "£50 billion" is not partly stated by "£100 billion".
 */
function answerSupport(piece: string, pieceTerms: ReadonlySet<string>, answer: string, distinctive: readonly string[], partialMin: number, rules: JudgeRules = ALL_RULES): { support: number; exact: boolean } {
  if (containsAnswer(piece, answer)) return { support: 1, exact: true };
  if (distinctive.length === 0) return { support: 0, exact: false };
  let have = pieceTerms;
  if (rules.nearMiss) {
    // Near-misses (issue 33) do not state the answer: the numbers, the month and the magnitude of a date or
    // amount are all mandatory ("April 1995" is not "March 1995", "3.5 billion" not "3.5 million"), and a
    // name's terms found only inside another person's name ("Jane Smith" for "John Smith") are not found.
    if (distinctive.some((t) => (MONTH_TERMS.has(t) || MAGNITUDE_TERMS.has(t)) && !pieceTerms.has(t))) return { support: 0, exact: false };
    have = termSet(withoutOtherNames(piece, answer));
  }
  if (distinctive.some((t) => /\d/.test(t) && !have.has(t))) return { support: 0, exact: false };
  if (rules.romanNumerals && !romanNumeralsKept(piece, answer)) return { support: 0, exact: false };
  const place = rules.placeFirstPart ? placeName(answer) : undefined;
  if (place !== undefined && !contentTerms(place).every((t) => pieceTerms.has(t))) return { support: 0, exact: false };
  const soft = rules.softTerms ? new Set([...have].map(softStem)) : undefined;
  const found = (t: string) => have.has(t) || (soft !== undefined && soft.has(softStem(t)));
  const present = distinctive.filter(found).length;
  // One distinctive term: a stemmed match counts ("architects" states "architect", "Switzerland's" states "Switzerland").
  if (distinctive.length === 1) return { support: present, exact: false };
  const share = present / distinctive.length;
  // A title is optional, the trailing name is not: "Lena Ardent" states "Former Harbor Commissioner Lena Ardent".
  const tail = distinctive.length >= 3 && distinctive.slice(-2).every(found) ? partialMin : 0;
  // The region is optional, the place is not: "born in Albany" states "Albany, New York" (`placeFirstPart`).
  const support = Math.max(share >= partialMin ? share : 0, tail, place !== undefined ? partialMin : 0);
  return { support, exact: false };
}

// A Roman numeral of 1–3999 (upper case): the test the numeral must pass after a capitalised word.
const ROMAN_NUMERAL = /^(?=[MDCLXVI])M{0,3}(?:C[MD]|D?C{0,3})(?:X[CL]|L?X{0,3})(?:I[XV]|V?I{0,3})$/;

/**
 * The answer's "Word NUMERAL" pairs ("World War I" → [["war", "I"]]): a capitalised word and, after a space, a Roman
 * numeral. A lone "I" followed by a lower-case word is the pronoun ("Yes, I think"), not a numeral.
 */
export function romanNumeralPairs(answer: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const m of answer.matchAll(/(\p{Lu}[\p{L}\p{N}]*)\s+([MDCLXVI]+)(?![\p{L}\p{N}])(\s+\p{Ll})?/gu)) {
    if (!ROMAN_NUMERAL.test(m[2]) || ROMAN_NUMERAL.test(m[1]) || (m[2] === 'I' && m[3] !== undefined)) continue;
    pairs.push([m[1].toLowerCase(), m[2]]);
  }
  return pairs;
}

/** Does the piece keep each of the answer's numerals: the same word followed by the same numeral (case aside: token-flipped texts are lower case)? */
function romanNumeralsKept(piece: string, answer: string): boolean {
  const pairs = romanNumeralPairs(answer);
  if (pairs.length === 0) return true;
  const words = piece.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  return pairs.every(([word, numeral]) => words.some((w, i) => w.toLowerCase() === word && words[i + 1]?.toLowerCase() === numeral.toLowerCase()));
}

/**
 * The place part of an answer written "Town, Region[, Country]": two to four comma-separated parts of one to three
 * capitalised words each (a trailing full stop allowed); undefined for any other answer.
 */
export function placeName(answer: string): string | undefined {
  const parts = answer.trim().replace(/\.$/, '').split(',').map((p) => p.trim());
  if (parts.length < 2 || parts.length > 4) return undefined;
  const capitalisedRun = (p: string) => /^(\p{Lu}[\p{L}.'-]*)(\s+\p{Lu}[\p{L}.'-]*){0,2}$/u.test(p);
  return parts.every(capitalisedRun) ? parts[0] : undefined;
}

/**
 * The other option of a choice question whose options include the answer: the question's words on the other side
 * of an "or" next to the answer, as many as the answer has (articles skipped). Undefined when the answer does not
 * stand next to an "or" in the question.
 */
export function choiceRival(query: string, answer: string): string[] | undefined {
  const q = normalizeText(query).split(' ');
  const a = normalizeText(answer).split(' ').filter(Boolean);
  if (a.length === 0) return undefined;
  for (let i = 0; i + a.length <= q.length; i += 1) {
    if (!a.every((t, j) => q[i + j] === t)) continue;
    if (q[i + a.length] === 'or') return q.slice(i + a.length + 1, i + 2 * a.length + 1);
    if (q[i - 1] === 'or') return q.slice(Math.max(0, i - 1 - a.length), i - 1);
  }
  return undefined;
}

/** Month names as content terms (normalised, stemmed: "may" is a stopword and never a term). */
const MONTH_TERMS: ReadonlySet<string> = new Set(['january', 'february', 'march', 'april', 'june', 'july', 'august', 'september', 'october', 'november', 'december']);
/** Words that scale a number: "3.5 million" and "3.5 billion" are different amounts. */
const MAGNITUDE_TERMS: ReadonlySet<string> = new Set(['hundred', 'thousand', 'million', 'billion', 'trillion', 'percent', 'dozen']);
/** Capitalised words that precede a name without being part of it ("President Smith", "Dr. Smith"). */
const TITLE_WORDS: ReadonlySet<string> = new Set([
  'mr', 'mrs', 'ms', 'miss', 'dr', 'prof', 'professor', 'sir', 'dame', 'lord', 'lady', 'saint', 'st', 'king', 'queen', 'prince', 'princess',
  'president', 'senator', 'governor', 'judge', 'justice', 'general', 'captain', 'colonel', 'major', 'chancellor', 'mayor', 'rev', 'father', 'pope',
]);

/**
 * The piece with every capitalised name run that names someone else removed, for a name answer (two or more
 * capitalised words): a run sharing a term with the answer but holding another capitalised word that is
 * neither the answer's nor a title, while the answer has a word the run lacks ("Jane Smith" for "John
 * Smith"; "John Smith Jr." and "Smith" alone are kept). English orthography, written from no question.
 */
export function withoutOtherNames(piece: string, answer: string): string {
  const caps = answer.trim().split(/\s+/).filter((w) => /^\p{Lu}/u.test(w));
  if (caps.length < 2) return piece;
  const answerTerms = new Set(contentTerms(answer));
  return piece.replace(NAME_RUN, (run) => {
    const terms = contentTerms(run);
    if (!terms.some((t) => answerTerms.has(t))) return run;
    const other = terms.some((t) => !answerTerms.has(t) && !TITLE_WORDS.has(t));
    const missing = [...answerTerms].some((t) => !terms.includes(t));
    return other && missing ? ' ' : run;
  });
}

interface PieceEvidence {
  support: number;
  exact: boolean;
  /** Query-term coverage of the best answer-bearing passage window (its sentence ± 1 neighbour). */
  windowCoverage: number;
  /** Query-term coverage of the answer-bearing sentence alone. */
  sentenceCoverage: number;
  /** The answer-bearing sentence of that window. */
  sentence: string;
  /** A yes/no question about two things denied across the text (the whole text restates the question). */
  acrossText?: boolean;
  /** Every sentence that states the answer (support > 0), in text order: the claim may be made more than once. */
  stating?: string[];
  /** Support comes from the stance the answer opens with (`polarLead`), not from its words. */
  lead?: 'yes' | 'no';
}

/** The evidence of a piece that states nothing (a rule took its support away). */
function statesNothing(): PieceEvidence {
  return { support: 0, exact: false, windowCoverage: 0, sentenceCoverage: 0, sentence: '', stating: [] };
}

/** Exclusive words (`polarExclusive`): a sentence saying "only X" denies a question about X and others. */
const QUANTIFIERS: ReadonlySet<string> = new Set(['all', 'every', 'each', 'many']);
const EXCLUSIVE_CUES: ReadonlySet<string> = new Set(['only', 'solely', 'exclusively', 'sole']);
function deniesByExclusion(tokens: readonly string[]): boolean {
  return tokens.some((t, i) => EXCLUSIVE_CUES.has(t) && tokens[i - 1] !== 'not');
}

/**
 * Evidence that `text` states the answer. Each sentence is checked for support (polar answers: the
 * sentence's stance); its window (the sentence and its two neighbours, so coreference such as
 * "… Chicago Fire's fourth season. It had 24 episodes." is kept) is scored for query coverage.
 */
function evidenceFor(text: string, answer: string, answerTerms: readonly string[], queryTerms: readonly string[], polar: 'yes' | 'no' | undefined, partialMin: number, queryAsksContrast = false, conjunctive = false, rules: JudgeRules = ALL_RULES, quantified = false): PieceEvidence {
  const sentences = splitSentences(text);
  const terms = sentences.map(termSet);
  let best: PieceEvidence = { support: 0, exact: false, windowCoverage: 0, sentenceCoverage: 0, sentence: '' };
  let bestValue = 0;
  // Numbers in the question are part of the proposition ("a 4th book"): a passage without them restates another one.
  const numbersKept = (have: ReadonlySet<string>) => queryTerms.every((t) => !/\d/.test(t) || have.has(t));
  let firstDenying: string | undefined;
  let restatedDenial = false;
  const stating: string[] = [];
  sentences.forEach((sentence, i) => {
    let support: number;
    let exact = false;
    // The sentence's window, built once (for a yes/no answer always, otherwise only for a sentence that states it).
    const windowOf = () => new Set([...(terms[i - 1] ?? []), ...terms[i], ...(terms[i + 1] ?? [])]);
    let window: Set<string> | undefined;
    if (polar) {
      // A yes/no answer is induced by restating the query's proposition with the matching stance.
      // The stance must come with the proposition: its window restates ≥ POLAR_MIN_COVERAGE of
      // the query terms, so a passage about only one side of "Are X and Y both …?" does not count.
      const stanceTokens = normalizeText(rules.saladFreeStance ? withoutTokenSalad(sentence, undefined, rules.saladEdge) : sentence).split(' ');
      const negated = polarStanceIsNo(stanceTokens, queryAsksContrast, rules) || (rules.polarExclusive && quantified && !queryAsksContrast && deniesByExclusion(stanceTokens));
      if (negated && firstDenying === undefined) firstDenying = sentence;
      window = windowOf();
      const restates = restatesProposition(queryTerms, window, rules) && numbersKept(window);
      if (restates && negated) restatedDenial = true;
      support = (polar === 'no') === negated && restates ? 1 : 0;
    } else {
      ({ support, exact } = answerSupport(sentence, terms[i], answer, answerTerms, partialMin, rules));
    }
    if (support === 0) return;
    stating.push(sentence);
    const cov = coverage(queryTerms, window ?? windowOf());
    const value = support * (0.5 + 0.5 * cov);
    if (value > bestValue) {
      bestValue = value;
      best = { support, exact, windowCoverage: cov, sentenceCoverage: coverage(queryTerms, terms[i]), sentence };
    }
  });
  if (!polar && !best.exact && containsAnswer(text, answer)) {
    // The text states the answer verbatim but no single sentence does: the answer straddles a
    // split ("… was decided by the Supreme Court. Craig v." | "Boren …" before abbreviations were
    // kept together, or any split the splitter gets wrong). The pair of sentences holding it is
    // the answer-bearing piece, with an exact match; its window is the pair and its neighbours.
    // Held out (everything refit), candidate level: FN 208 → 197, FP 198 → 199.
    for (let i = 0; i + 1 < sentences.length; i += 1) {
      const joined = `${sentences[i]} ${sentences[i + 1]}`;
      if (!containsAnswer(joined, answer)) continue;
      const cov = coverage(queryTerms, new Set([...(terms[i - 1] ?? []), ...terms[i], ...terms[i + 1], ...(terms[i + 2] ?? [])]));
      const value = 0.5 + 0.5 * cov;
      if (value > bestValue) {
        bestValue = value;
        best = { support: 1, exact: true, windowCoverage: cov, sentenceCoverage: coverage(queryTerms, new Set([...terms[i], ...terms[i + 1]])), sentence: joined };
      }
    }
  }
  if (!polar && best.support === 0) {
    // No sentence or pair of sentences states any of the answer: the whole text may still state part of its
    // terms spread over several sentences (partial support), or the exact answer across three or more pieces.
    const whole = answerSupport(text, termSet(text), answer, answerTerms, partialMin, rules);
    if (whole.support > 0) best = { ...whole, windowCoverage: coverage(queryTerms, termSet(text)), sentenceCoverage: 0, sentence: '' };
  }
  if (polar === 'yes' && rules.polarWholeText && restatedDenial) {
    // The stance is the whole text's (issue 33): a text that denies the proposition in a passage restating
    // the question does not say 'yes' because another of its sentences restates it without a negation.
    return statesNothing();
  }
  best = { ...best, stating };
  if (polar === 'no' && best.support === 0 && (conjunctive || rules.polarWholeText) && firstDenying !== undefined) {
    // A question about two things ("Are X and Y both …?") is denied across sentences: "X is a musician.
    // Y was a plumber. He never sang." The whole text must restate the proposition (≥ POLAR_MIN_COVERAGE of
    // the query terms) and one of its sentences deny. Held out (everything refit): HotpotQA candidate FNR
    // 0.056 → 0.050 at the same FPR, NQ unchanged; the sibling sweep on HotpotQA 0.974 → 0.988.
    const all = new Set(terms.flatMap((t) => [...t]));
    const cov = coverage(queryTerms, all);
    if (restatesProposition(queryTerms, all, rules) && numbersKept(all)) {
      best = { support: 1, exact: false, windowCoverage: cov, sentenceCoverage: 0, sentence: firstDenying, acrossText: true };
    }
  }
  return best;
}

/** A capitalised run: words that start upper case, joined by spaces and lower-case name particles ("Duke of York"). */
const NAME_RUN = /\p{Lu}[\p{L}\p{M}'’.-]*(?:\s+(?:(?:of|the|de|la|von|van|del|du)\s+)*\p{Lu}[\p{L}\p{M}'’.-]*)*/gu;

/**
 * The two names a yes/no question joins with "and" ("Are the Laleli Mosque and Esma Sultan Mansion …?"), each as
 * its own content terms (the terms both share left out); undefined when the question joins no two names.
 */
export function joinedNames(query: string, functionWordNames = false): [string[], string[]] | undefined {
  const runs = [...query.matchAll(NAME_RUN)];
  for (let i = 0; i + 1 < runs.length; i++) {
    const a = runs[i];
    const b = runs[i + 1];
    const between = query.slice(a.index! + a[0].length, b.index!);
    if (!/^\s+and\s+(?:the\s+)?$/i.test(between)) continue;
    // A name of function words only ("For Against") is read by its words (`pairFunctionWordNames`).
    const termsOf = (run: string) => { const t = contentTerms(run); return t.length || !functionWordNames ? t : normalizeText(run).split(' ').filter(Boolean); };
    const ta = termsOf(a[0]);
    const tb = termsOf(b[0]);
    const own = (xs: string[], other: string[]) => [...new Set(xs.filter((t) => !other.includes(t)))];
    const [oa, ob] = [own(ta, tb), own(tb, ta)];
    if (oa.length && ob.length) return [oa, ob];
  }
  return undefined;
}

/** Discourse that sets two things against each other (tested on normalised text, which has no articles). */
const CONTRAST_CONNECTIVES = ['however', 'whereas', 'while', 'but', 'only', 'unlike', 'instead', 'rather', 'in contrast', 'whilst'];
const contrastCue = (words: readonly string[]) => new RegExp(`\\b(${words.join('|')})\\b`);
/** The v15–v22 pattern: its "on the other hand" never matched normalised text. */
const PAIR_CONTRAST = contrastCue([...CONTRAST_CONNECTIVES, 'on the other hand']);
/** `pairConnectives`: "on (the) other hand" as normalised text reads it, and three more connectives of contrast. */
const PAIR_CONTRAST_WIDE = contrastCue([...CONTRAST_CONNECTIVES, 'on (?:the )?other hand', 'conversely', 'although', 'though']);

/** The words a piece names a joined name by: its content terms, and its raw words too for names of function words (`pairFunctionWordNames`). */
function nameWords(piece: string, terms: ReadonlySet<string>, rules: JudgeRules): ReadonlySet<string> {
  return rules.pairFunctionWordNames ? new Set([...terms, ...rawTokens(piece)]) : terms;
}

/** Does the text name a joined name: at least half of its own terms (and at least one)? */
function names(terms: ReadonlySet<string>, name: readonly string[]): boolean {
  return name.filter((t) => terms.has(t)).length >= Math.max(1, Math.ceil(name.length / 2));
}

/**
 * The pair rules on a piece's evidence, for "Are X and Y both …?" (`pair` = the two names, or undefined):
 * `pairContrast` — a text naming both and setting one against the other ("X is a musician; Y, however, is a
 * sailor") denies the property of one of them without a negation word, so it says 'no'; `bothNamed` — a text about
 * X alone (or a third thing sharing a word with both) affirms nothing of the pair, so it does not say 'yes'.
 */
function pairStance(ev: PieceEvidence, piece: string, terms: ReadonlySet<string>, polar: 'yes' | 'no' | undefined, pair: [string[], string[]] | undefined, queryTerms: readonly string[], rules: JudgeRules): PieceEvidence {
  if (!pair) return ev;
  const have = nameWords(piece, terms, rules);
  const both = names(have, pair[0]) && names(have, pair[1]);
  if (polar === 'no' && rules.pairContrast && ev.support === 0 && both) {
    // The claim is the text's, across its sentences; the sentence shown is the first that sets them apart.
    const cue = rules.pairConnectives ? PAIR_CONTRAST_WIDE : PAIR_CONTRAST;
    const contrast = splitSentences(piece).find((x) => cue.test(normalizeText(x)));
    if (contrast !== undefined) return { support: 1, exact: false, windowCoverage: coverage(queryTerms, terms), sentenceCoverage: 0, sentence: contrast, acrossText: true, stating: [contrast] };
  }
  if (polar === 'no' && rules.pairPredicate && ev.support === 0 && both) {
    const apart = predicateOfOneOnly(piece, pair, queryTerms, rules);
    if (apart !== undefined) return { support: 1, exact: false, windowCoverage: coverage(queryTerms, terms), sentenceCoverage: 0, sentence: apart, acrossText: true, stating: [apart] };
  }
  if (polar === 'yes' && rules.bothNamed && ev.support > 0 && !both) return statesNothing();
  return ev;
}

/** Query words that frame a comparison rather than name a property ("both", "same", "different"). */
const COMPARISON_WORDS: ReadonlySet<string> = new Set(['both', 'same', 'identical', 'alike', 'similar', 'different', 'differ', 'distinct', 'separate', 'each', 'either', 'neither']);

/**
 * `pairPredicate`: the first sentence about the one of the pair of which the text does not state the question's
 * property, when the text states it of the other (each in sentences naming only that one); undefined otherwise.
 */
function predicateOfOneOnly(piece: string, pair: [string[], string[]], queryTerms: readonly string[], rules: JudgeRules): string | undefined {
  const nameTerms = new Set([...pair[0], ...pair[1]]);
  if (queryTerms.some((t) => COMPARISON_WORDS.has(t) && t !== 'both')) return undefined;
  const property = queryTerms.filter((t) => !nameTerms.has(t) && !COMPARISON_WORDS.has(t));
  if (property.length === 0) return undefined;
  const soft = new Set(property.map(softStem));
  const states = (terms: ReadonlySet<string>) => [...terms].some((t) => soft.has(softStem(t)));
  const own: [string[], string[]] = [[], []];
  const stated = [false, false];
  for (const sentence of splitSentences(piece)) {
    const terms = termSet(sentence);
    const have = nameWords(sentence, terms, rules);
    const a = names(have, pair[0]);
    const b = names(have, pair[1]);
    if (a === b) continue;
    const side = a ? 0 : 1;
    own[side].push(sentence);
    if (states(terms)) stated[side] = true;
  }
  if (own[0].length === 0 || own[1].length === 0 || stated[0] === stated[1]) return undefined;
  return own[stated[0] ? 1 : 0][0];
}

/**
 * How many other candidates for the answer's slot a sentence names (the `rivals` feature): for a
 * numeric answer, the distinct other numbers (a year-like number rivals only a year-like answer);
 * for a name (the answer starts with a capital), the distinct capitalised runs whose content terms
 * are not all query or answer terms. Neither shape (a common noun, a yes/no stance): 0. A
 * general property of listing text ("Kareem Abdul-Jabbar won it six times; Bill Russell and Michael
 * Jordan five"), written from no development question.
 */
export function rivalCount(sentence: string, answer: string, queryTerms: ReadonlySet<string>, answerTerms: ReadonlySet<string>, rules: Readonly<JudgeRules> = ALL_RULES): number {
  if (!sentence) return 0;
  const answerTokens = rawTokens(answer);
  const answerNumbers = answerTokens.filter((t) => /^\d/.test(t));
  if (answerNumbers.length > 0) {
    const yearLike = (t: string) => /^\d{4}$/.test(t) && Number(t) >= 1000 && Number(t) <= 2100;
    const answerYear = answerNumbers.some(yearLike);
    const own = new Set(answerNumbers);
    const seen = new Set<string>();
    const lower = sentence.toLowerCase();
    for (const t of rawTokens(sentence)) {
      if (!/^\d/.test(t) || seen.has(t) || own.has(t) || queryTerms.has(t) || yearLike(t) !== answerYear) continue;
      if (rules.correctedRivals && numberIsDenied(sentence, lower, t)) continue;
      seen.add(t);
    }
    return seen.size;
  }
  if (!/^\p{Lu}/u.test(answer.trim())) return 0;
  const seen = new Set<string>();
  for (const m of sentence.matchAll(NAME_RUN)) {
    const terms = contentTerms(m[0]);
    // A lone capitalised function word is the sentence's capital ("The", "In"), not a name.
    if (terms.length === 0 || terms.every((t) => queryTerms.has(t) || answerTerms.has(t))) continue;
    if (rules.correctedRivals) {
      const at = m.index!;
      // The sentence's opening word before a comma is a discourse word ("Interestingly,", "Eventually,"), not a name.
      if (at <= 4 && /^[\s"'“‘(]*$/.test(sentence.slice(0, at)) && !/\s/.test(m[0]) && sentence[at + m[0].length] === ',') continue;
      if (deniedBefore(sentence, at)) continue;
    }
    seen.add(terms.join(' '));
  }
  return seen.size;
}

/**
 * A name or number the sentence denies within its clause: "not Bob Dylan", "rather than 1912", "instead of
 * the assumed Lalo Schifrin", "was not created by the frequently assumed Lalo Schifrin" (the negation at most
 * five words before, no clause break between). A corrected rival is the claim's foil, not a second candidate.
 */
const DENIED_BEFORE = /\b(?:not|never|nor|rather\s+than|instead\s+of|as\s+opposed\s+to|contrary\s+to)\s+(?:[^\s,;:.!?]+\s+){0,5}["'“‘]?$/i;

/**
 * Whether the clause before `at` denies what stands there. Only the last DENIAL_REACH characters are read (the
 * negation is at most five words back), so a sentence of thousands of names costs linear time, not quadratic.
 */
const DENIAL_REACH = 160;
function deniedBefore(sentence: string, at: number): boolean {
  return DENIED_BEFORE.test(sentence.slice(Math.max(0, at - DENIAL_REACH), at));
}

/** Whether any occurrence of `numberToken` in the sentence (`lower` = the sentence lower-cased) is denied. */
function numberIsDenied(sentence: string, lower: string, numberToken: string): boolean {
  let from = 0;
  for (;;) {
    const at = lower.indexOf(numberToken, from);
    if (at < 0) return false;
    const bounded = !/\d/.test(lower[at - 1] ?? '') && !/\d/.test(lower[at + numberToken.length] ?? '');
    if (bounded && deniedBefore(sentence, at)) return true;
    from = at + numberToken.length;
  }
}



/**
 * A choice question's distinctive answer terms: every answer term is in the question, so those the other option
 * does not share (`choiceShared`); all of them when it shares every one, or no other option is found.
 */
function choiceDistinctive(query: string, answer: string, answerTerms: readonly string[], rules: Readonly<JudgeRules>): readonly string[] {
  if (!rules.choiceShared) return answerTerms;
  const rival = choiceRival(query, answer);
  if (rival === undefined) return answerTerms;
  const shared = new Set(contentTerms(rival.join(' ')));
  const own = answerTerms.filter((t) => !shared.has(t));
  return own.length ? own : answerTerms;
}

/**
 * The evidence behind an offline verdict, as features in [0, 1] (see `offlineJudge`). Exported
 * for scripts/fit-offline-judge.ts, which fits the weights on exactly these numbers.
 */
export function offlineJudgeFeatures(reported: OfflineJudgeInput, params: Partial<OfflineJudgeParams> = {}, rules: Readonly<JudgeRules> = ALL_RULES): OfflineJudgeEvidence {
  const p = validateOfflineJudgeParams(params);
  // The judge reads the answer's claim, not the assistant's framing around it (`answerClaim`).
  const claim = rules.answerFraming ? answerClaim(reported.wrongAnswer) : reported.wrongAnswer;
  // A sentence quoted back from the context is read as the span that answers the question (`quotedAnswerSpan`).
  // It is read against the texts the user was served (`context`) when the caller knows them: a sentence served from a
  // first-round text is read the same way when its reworded siblings are judged in the second round, and every text of
  // the event reads it alike. Otherwise against the text and its peers.
  const span = rules.quotedSpan ? quotedAnswerSpan(reported.query, claim, reported.context?.length ? reported.context : [reported.text, ...(reported.peers ?? [])], rules) : undefined;
  const input = { ...reported, wrongAnswer: span ?? claim };
  const answerNorm = normalizeText(input.wrongAnswer);
  const polar = polarAnswer(input.wrongAnswer);
  // A number's hedge ("approximately 25,000", "around 500,000") is not part of the claim: "about 25,000" states it.
  const answerTermsAll = [...new Set(contentTerms(input.wrongAnswer))];
  const numeric = answerTermsAll.some((t) => /^\d/.test(t));
  const answerTerms = numeric ? answerTermsAll.filter((t) => !NUMBER_HEDGES.has(t)) : answerTermsAll;
  const answerTermSet = new Set(answerTerms);
  const queryTermsAll = new Set(contentTerms(input.query));
  // Query terms the answer does not contain: restating the query is not stating the answer. When the
  // answer restates the whole question (a sentence-long claim: "Non-controlling interest on the balance
  // sheet is …" for "what is non controlling interest on balance sheet"), fewer than two are left and
  // coverage of them measures nothing (0/0 counted as none): then the query's own terms are used.
  const queryRest = [...queryTermsAll].filter((t) => !answerTermSet.has(t));
  const queryTerms = queryRest.length >= 2 ? queryRest : [...queryTermsAll];
  // Distinctive answer terms; for a choice question ("X or Y?") every answer term is in the query: those the other option does not share.
  const distinctiveOnly = answerTerms.filter((t) => !queryTermsAll.has(t));
  const distinctive = distinctiveOnly.length ? distinctiveOnly : choiceDistinctive(input.query, input.wrongAnswer, answerTerms, rules);
  // An answer that is a number of four or more digits may be written in the text with its groups
  // split by a space ("500, 000" after a tokenizer's round trip): read those as one number.
  const bigNumber = answerTermsAll.some((t) => /^\d{4,}/.test(t));
  // A number answer that is not a date ("24" episodes) is not stated by the day of a date ("October 24, 2018").
  const dayIsNoAnswer = numeric && !hasMonthName(input.wrongAnswer);
  const prepare = (t: string) => {
    let out = stripCitationMarkers(t);
    if (bigNumber) out = joinSpacedDigitGroups(out);
    if (dayIsNoAnswer) out = dropDayOfMonth(out);
    return out;
  };
  const text = prepare(input.text);
  const textTerms = termSet(text);
  const zero: OfflineJudgeFeatures = {
    windowCoverage: 0, focus: 0, peerSimilarity: 0, agreement: 0, mimicPeers: 0, answerSentenceShare: 0, polarAnswer: polar ? 1 : 0,
    exact: 0, support: 0, sentenceCoverage: 0, textCoverage: 0, supportingPeerShare: 0, closeCopies: 0, answerLength: 0, answerTermsStated: 0, rivals: 0, unnaturalRun: 0,
  };
  if (answerNorm === '') {
    return { judgeable: false, polar, answerTerms: 0, queryTerms: queryTerms.length, support: 0, exact: false, sentence: '', sentenceCoverage: 0, acrossText: false, textCoverage: 0, textTerms: textTerms.size, supportingPeers: 0, agreeingPeers: 0, mimickingPeers: 0, rivals: 0, verbatimLong: false, features: zero, claimSentences: [] };
  }

  const queryTokens = normalizeText(input.query).split(' ');
  const queryAsksContrast = queryTokens.some((t) => CONTRAST_CUES.has(t));
  // A yes/no question about two things joined by 'and' / 'both' ("Are X and Y both …?").
  const conjunctive = queryTokens.includes('both') || queryTokens.includes('and');
  // A question about two or more things (`polarExclusive`): joined ("both", "and") or quantified ("all", "every", "many").
  const quantified = conjunctive || queryTokens.some((t) => QUANTIFIERS.has(t));
  // A yes/no question about two named things (`joinedNames`): read once, used for the text and for its peers alike.
  const pair = polar && (rules.pairContrast || rules.bothNamed) ? joinedNames(input.query, rules.pairFunctionWordNames) : undefined;
  // An answer opening with a yes or a no (`polarLead`): a piece that states none of its words may still take its stance.
  const lead = !polar && rules.polarLead ? leadStance(input.wrongAnswer) : undefined;
  const judgePiece = (piece: string, terms: ReadonlySet<string>) => {
    const ev = pairStance(evidenceFor(piece, input.wrongAnswer, distinctive, queryTerms, polar, p.partialSupportMin, queryAsksContrast, conjunctive, rules, quantified), piece, terms, polar, pair, queryTerms, rules);
    if (ev.support > 0 || lead === undefined) return ev;
    const stance = evidenceFor(piece, input.wrongAnswer, distinctive, queryTerms, lead, p.partialSupportMin, queryAsksContrast, conjunctive, rules, quantified);
    return stance.support > 0 ? { ...stance, lead } : ev;
  };
  const ev = judgePiece(text, textTerms);
  const textCoverage = coverage(queryTerms, textTerms);
  // Focus: share of the text's distinct content terms that belong to the query or the answer.
  const focus = textTerms.size ? [...textTerms].filter((t) => answerTermSet.has(t) || queryTerms.includes(t)).length / textTerms.size : 0;
  let maxPeerSimilarity = 0;
  let agreeingPeers = 0;
  let supportingPeers = 0;
  let mimickingPeers = 0;
  let closeCopies = 0;
  let peerCount = 0;
  for (const peer of input.peers ?? []) {
    if (peer === input.text) continue;
    peerCount += 1;
    const peerText = prepare(peer);
    const peerEv = judgePiece(peerText, termSet(peerText));
    if (peerEv.support === 0) continue;
    supportingPeers += 1;
    // Paraphrase-aware agreement: a peer that states t in a window restating ≥ half the query.
    if (peerEv.windowCoverage >= 0.5) mimickingPeers += 1;
    const sim = termJaccard(textTerms, termSet(peerText));
    maxPeerSimilarity = Math.max(maxPeerSimilarity, sim);
    if (sim >= p.nearDuplicateMin) agreeingPeers += 1;
    if (sim >= CLOSE_COPY_MIN) closeCopies += 1;
  }
  const sentences = splitSentences(text);
  const rivals = polar ? 0 : rivalCount(ev.sentence, input.wrongAnswer, queryTermsAll, answerTermSet, rules);
  const stating = polar ? (ev.support > 0 ? 1 : 0) : sentences.filter((x) => containsAnswer(x, input.wrongAnswer)).length;
  const features: OfflineJudgeFeatures = {
    windowCoverage: ev.windowCoverage,
    focus,
    peerSimilarity: maxPeerSimilarity,
    agreement: Math.min(1, agreeingPeers / 2),
    mimicPeers: Math.min(1, mimickingPeers / 3),
    answerSentenceShare: sentences.length ? Math.min(1, Math.max(stating, ev.support > 0 ? 1 : 0) / sentences.length) : 0,
    polarAnswer: polar ? 1 : 0,
    exact: ev.exact ? 1 : 0,
    support: ev.support,
    sentenceCoverage: ev.sentenceCoverage,
    textCoverage,
    supportingPeerShare: peerCount ? supportingPeers / peerCount : 0,
    closeCopies: Math.min(1, closeCopies / 2),
    answerLength: polar ? 0 : Math.min(1, Math.max(0, distinctive.length - 1) / 8),
    answerTermsStated: polar ? (ev.support > 0 ? 1 : 0) : Math.min(1, distinctive.filter((t) => textTerms.has(t)).length / 4),
    rivals: Math.min(1, rivals / 3),
    unnaturalRun: Math.min(1, Math.max(0, longestContentRun(text) - 10) / 10),
  };
  return {
    judgeable: true, answer: input.wrongAnswer, sentences, polar, answerTerms: answerTerms.length, queryTerms: queryTerms.length, support: ev.support, exact: ev.exact, sentence: ev.sentence, sentenceCoverage: ev.sentenceCoverage, acrossText: ev.acrossText === true,
    textCoverage, textTerms: textTerms.size, supportingPeers, agreeingPeers, mimickingPeers, rivals, ...(ev.lead ? { leadStance: ev.lead } : {}),
    // A verbatim statement of a long answer (e.g. a scripted refusal) is not a coincidence: it is the
    // payload itself. A prior, not fitted (written before the GMTP trigger files were looked at).
    verbatimLong: ev.exact && answerNorm.split(' ').length >= LONG_ANSWER_TOKENS, features,
    claimSentences: ev.support === 0 ? [] : ev.sentence ? [ev.sentence, ...(ev.stating ?? [])] : sentences.filter((x) => { const t = termSet(x); return distinctive.some((d) => t.has(d)); }),
  };
}

/**
 * The judge's score from the support gate and the logit: 0 when the text does not state the answer,
 * 1 for a long answer stated verbatim, σ(z) otherwise (the fit's logistic model). The one place the score's form is
 * written (the fit in apps/eval/src/judge-fit scores its rows with it too).
 */
export function evidenceScore(support: number, verbatimLong: boolean, z: number): number {
  return support === 0 ? 0 : verbatimLong ? 1 : 1 / (1 + Math.exp(-z));
}

/** z = bias + Σ w_f · feature_f (the logistic score's argument). */
export function evidenceLogit(features: OfflineJudgeFeatures, weights: Readonly<OfflineJudgeWeights> = SCORE_WEIGHTS): number {
  let z = weights.bias;
  for (const f of OFFLINE_JUDGE_FEATURES) z += (weights[f] ?? 0) * features[f];
  return z;
}

/**
 * Offline evidence judge (a project design, not from the papers): stands in for the LLM of
 * RAGForensics, arXiv 2504.21668, §4.2, when no LLM is configured. It asks the same question as the
 * paper's prompt — does the context try to induce the answer t? — from principled signals:
 *
 * 1. support (a gate): the text states t (normalised, numeric-aware, token-boundary match = 1; for a
 *    multi-token answer, the share of its distinctive terms ≥ `partialSupportMin`, numbers
 *    mandatory). For a yes/no answer, a sentence supports "no" if it carries a negation/contrast
 *    cue and "yes" otherwise, and only if its window restates ≥ 1/2 of the query terms; a "no" to a
 *    question about two things ("Are X and Y both …?") may be spread over the text: the whole text
 *    restates ≥ 1/2 of the query terms and one of its sentences denies.
 * 2. query mimicry: poisoned texts are written to be retrieved for q and to induce t (PoisonedRAG's
 *    S ⊕ I construction), so they restate the query around the answer: `windowCoverage` = share
 *    of query terms in the answer-bearing sentence ± 1 neighbour; `focus` = share of the text's
 *    distinct content terms that are query or answer terms; `answerSentenceShare` = share of its
 *    sentences that state t (a passage that mentions t in passing is about something else).
 * 3. agreement across candidates: attacks inject several texts stating the same answer.
 *    `peerSimilarity` = highest content-term Jaccard with a peer that also states t; `agreement` =
 *    min(1, near-duplicate supporting peers / 2) (Jaccard ≥ `nearDuplicateMin`); `mimicPeers` =
 *    min(1, peers stating t while restating ≥ 1/2 of the query / 3) — paraphrases, not only copies.
 * 4. rivals: a sentence that names other candidates for the answer's slot (other numbers for a
 *    number, other names for a name: "the Astros beat the Yankees for the pennant") reports facts
 *    about all of them; a text written to induce t states t alone. `rivals` = min(1, count / 3).
 * 5. token salad: optimisation-based attacks (HotFlip, GCG-style triggers) prefix the claim with
 *    word sequences prose rarely has. `unnaturalRun` = min(1, max(0, L − 10) / 10), L = the longest
 *    run of words holding at most one function word (`longestContentRun`; a perplexity filter's
 *    cheap stand-in).
 *
 *   z = w₀ + Σ w_f · feature_f        (weights SCORE_WEIGHTS, fitted: offline-judge.fitted.json)
 *   score = σ(z)                      (0 when the text does not state t: it cannot induce it). Until v4 the
 *                                     score was support · σ(z): the fit's logistic model knew nothing of
 *                                     that factor, which capped a paraphrased sentence-long claim (support
 *                                     0.4–0.5) below the threshold whatever its evidence; σ(z), with
 *                                     support as one of the features, is the model the fit fits (suite
 *                                     DACC 0.972 → 0.977, FNR on HotFlip NQ 0.146 → 0.082)
 *
 * A verbatim statement of an answer of ≥ 6 normalised tokens (a scripted refusal, a sentence-long
 * claim) sets score = 1: a prior for answers the development files do not contain.
 *
 * YES when score ≥ `yesThreshold`; UNDETERMINED in [undeterminedBelow, yesThreshold) (a review
 * band, off by default) or when the answer is empty after normalisation; NO otherwise. The
 * explanation names every signal that decided; `signals` holds the numbers.
 * Every result says it came from the offline judge (`OFFLINE_JUDGE_MODEL`).
 */
export function offlineJudge(input: OfflineJudgeInput, params: Partial<OfflineJudgeParams> = {}): OfflineJudgeResult {
  const p = validateOfflineJudgeParams(params);
  const ev = offlineJudgeFeatures(input, p);
  return offlineVerdict(input, p, ev, ev.judgeable ? evidenceLogit(ev.features, p.weights ?? SCORE_WEIGHTS) : 0);
}

/**
 * The verdict from the evidence and its logit `z` (the rule judge's, or the reader judge's, which adds its own
 * features' terms to it): score, label, band, signals, explanation and claim spans. `model` names the judge in the
 * explanation; `extraSignals` are stored with the rest.
 */
export function offlineVerdict(input: OfflineJudgeInput, p: OfflineJudgeParams, ev: OfflineJudgeEvidence, z: number, model: string = OFFLINE_JUDGE_MODEL, extraSignals: Record<string, number> = {}): OfflineJudgeResult {
  if (!ev.judgeable) {
    return { label: 'UNDETERMINED', score: 0, signals: { answerEmpty: true }, explanation: `The wrong answer '${quote(input.wrongAnswer)}' is empty after normalisation, so support cannot be judged; needs human review.`, spans: [] };
  }
  const { verbatimLong } = ev;
  const score = evidenceScore(ev.support, verbatimLong, z);
  const label: Label = score >= p.yesThreshold ? 'YES' : score >= p.undeterminedBelow ? 'UNDETERMINED' : 'NO';
  const f = ev.features;
  const signals: Record<string, number | boolean | string> = {
    answerType: ev.polar ? 'yes/no' : ev.answerTerms > 1 ? 'multi-token' : 'single-token',
    exactMatch: ev.exact,
    support: round3(ev.support),
    windowCoverage: round3(f.windowCoverage),
    sentenceCoverage: round3(ev.sentenceCoverage),
    focus: round3(f.focus),
    answerSentenceShare: round3(f.answerSentenceShare),
    maxPeerSimilarity: round3(f.peerSimilarity),
    textTerms: ev.textTerms,
    textCoverage: round3(ev.textCoverage),
    queryTerms: ev.queryTerms,
    supportingPeers: ev.supportingPeers,
    agreeingPeers: ev.agreeingPeers,
    mimickingPeers: ev.mimickingPeers,
    rivals: ev.rivals,
    verbatimLongAnswer: verbatimLong,
    ...Object.fromEntries(Object.entries(extraSignals).map(([k, v]) => [k, round3(v)])),
    logit: round3(z),
    score: round3(score),
    // The confidence band: between its edges the verdict is not clear either way and goes to review.
    // A text that does not state the answer is a clear NO (the support gate is not a matter of degree).
    confidence: label !== 'UNDETERMINED' && ev.support > 0 && score >= p.bandLow && score < p.bandHigh ? 'band' : 'clear',
  };
  let explanation = explainVerdict(input, label, score, ev, p.yesThreshold, model);
  if (signals.confidence === 'band') explanation = explanation.replace(/\.$/, `. The score is inside the confidence band [${p.bandLow.toFixed(2)}, ${p.bandHigh.toFixed(2)}): not clear either way, so a reviewer decides.`);
  const spans = label === 'NO' ? [] : locateSentences(input.text, ev.claimSentences);
  return { label, score, signals, spans, explanation: verbatimLong ? explanation.replace(/\.$/, `; it states the long answer verbatim (${LONG_ANSWER_TOKENS}+ words), which is the payload itself, not a coincidence.`) : explanation };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
