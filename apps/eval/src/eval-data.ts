import { containsAnswer, longestContentRun, quoteSentences, TOKEN_SALAD_MIN_RUN } from '@forensics/algorithms';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** One record of the shared evaluation data (see ../shared/data/README.md, "Record fields"). */
export interface EvalRecord {
  id: string;
  dataset: string;
  attack: string;
  question: string;
  correct_answer?: string;
  incorrect_answer: string;
  poisoned_texts: string[];
  clean_texts: string[];
  /**
   * Where each clean text comes from, aligned with `clean_texts`: the record's `clean_links` (RobustRAG's
   * search results carry their URL) when the file has one per text; ingested as `metadata.source`, which
   * the consensus check reads (`CONSENSUS_SOURCE_KEY`). Absent when the file has none.
   */
  clean_sources?: (string | null)[];
  poisoned_variants?: Record<string, string[]>;
}

/** Which poisoned texts form the attack: the record's own, or one of its `poisoned_variants` (GPT-4 / Gemini rewrites). */
export type PoisonSet = 'given' | string;

export class EvalDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EvalDataError';
  }
}

/** Dataset name used in reports and the default output folder: the file name without `.jsonl`. */
export function dataName(file: string): string {
  return basename(file).replace(/\.jsonl$/i, '');
}

/**
 * Reads and validates a JSONL file of records; the data stays where it is (never copied into the
 * repository). A missing file is an EvalDataError with a message saying where the data is expected.
 */
export function loadEvalRecords(file: string, limit?: number, onSkip?: (where: string, reason: string) => void): EvalRecord[] {
  if (!existsSync(file)) {
    throw new EvalDataError(`evaluation data not found: ${file}\n  The harness reads the shared third-party data from ../shared/data/ (see its README.md); it is not part of this repository.\n  Point --data at a JSONL file with records {question, incorrect_answer, poisoned_texts[], clean_texts[]}.`);
  }
  const out: EvalRecord[] = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length && (limit === undefined || out.length < limit); i++) {
    const line = lines[i].trim();
    if (!line) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (err) {
      throw new EvalDataError(`${file}:${i + 1}: not JSON (${(err as Error).message})`);
    }
    // A record without a wrong answer cannot form a feedback event (question, incorrect_answer): skipped, and said so.
    const r = raw as Record<string, unknown> | null;
    if (r && typeof r === 'object' && !Array.isArray(r) && (typeof r.incorrect_answer !== 'string' || !r.incorrect_answer.trim())) {
      onSkip?.(`${file}:${i + 1}`, 'no incorrect_answer');
      continue;
    }
    out.push(validate(raw, `${file}:${i + 1}`));
  }
  if (!out.length) throw new EvalDataError(`${file}: no records`);
  return out;
}

function validate(raw: unknown, where: string): EvalRecord {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new EvalDataError(`${where}: a record must be a JSON object`);
  const r = raw as Record<string, unknown>;
  const str = (k: string) => {
    if (typeof r[k] !== 'string' || !(r[k] as string).trim()) throw new EvalDataError(`${where}: ${k} must be a non-empty string`);
    return r[k] as string;
  };
  const strs = (k: string) => {
    const v = r[k];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new EvalDataError(`${where}: ${k} must be an array of strings`);
    return (v as string[]).filter((x) => x.trim());
  };
  const variants = r.poisoned_variants;
  const rawClean = r.clean_texts;
  const links = r.clean_links;
  const cleanSources = Array.isArray(rawClean) && Array.isArray(links) && links.length === rawClean.length
    ? rawClean.flatMap((t, i) => (typeof t === 'string' && t.trim() ? [typeof links[i] === 'string' && (links[i] as string).trim() ? (links[i] as string) : null] : []))
    : undefined;
  return {
    id: r.id === undefined ? where : String(r.id),
    dataset: typeof r.dataset === 'string' ? r.dataset : '',
    attack: typeof r.attack === 'string' ? r.attack : '',
    question: str('question'),
    correct_answer: typeof r.correct_answer === 'string' ? r.correct_answer : undefined,
    incorrect_answer: str('incorrect_answer'),
    poisoned_texts: strs('poisoned_texts'),
    clean_texts: strs('clean_texts'),
    ...(cleanSources ? { clean_sources: cleanSources } : {}),
    poisoned_variants: typeof variants === 'object' && variants !== null && !Array.isArray(variants) ? (variants as Record<string, string[]>) : undefined,
  };
}

/** The poisoned texts of a record for the chosen poison set, the first `count` of them (all when undefined). */
export function poisonedTextsOf(r: EvalRecord, set: PoisonSet, count?: number): string[] {
  let texts: string[];
  if (set === 'given') texts = r.poisoned_texts;
  else if (set === 'mixed') texts = mixedPoisonSet(r);
  else {
    const v = r.poisoned_variants?.[set];
    if (!Array.isArray(v)) throw new EvalDataError(`record ${r.id}: no poisoned_variants.${set} (available: ${Object.keys(r.poisoned_variants ?? {}).join(', ') || 'none'})`);
    texts = v.filter((t) => typeof t === 'string' && t.trim());
  }
  return count === undefined ? texts : texts.slice(0, count);
}

/**
 * The `mixed` poison set: the given texts and every variant's, taken in turn (given[0], variant A[0], variant B[0],
 * given[1], …), duplicates once. One attack whose texts were written by several generators, so they share no wording
 * beyond the question and the answer: how an adaptive attacker spreads a group past the near-duplicate rule.
 */
function mixedPoisonSet(r: EvalRecord): string[] {
  const variants = Object.keys(r.poisoned_variants ?? {}).sort().map((k) => (r.poisoned_variants![k] ?? []).filter((t): t is string => typeof t === 'string' && t.trim() !== ''));
  const sources = [r.poisoned_texts, ...variants].filter((s) => s.length > 0);
  if (sources.length < 2) throw new EvalDataError(`record ${r.id}: the mixed poison set needs poisoned_variants (none given)`);
  const out = new Set<string>();
  for (let i = 0; out.size < r.poisoned_texts.length && sources.some((s) => i < s.length); i++) {
    for (const s of sources) if (i < s.length && out.size < r.poisoned_texts.length) out.add(s[i]!);
  }
  return [...out];
}

/**
 * One collection from a whole file (the audits' evaluation): every question's clean texts and its given
 * poisons, a text present twice counted once; a "poison" that is also some question's clean text is not
 * planted.
 */
export function oneCollection(records: readonly EvalRecord[]): { texts: string[]; planted: Set<string> } {
  const planted = new Set<string>();
  const texts = new Set<string>();
  for (const r of records) {
    for (const t of r.clean_texts) texts.add(t);
    for (const t of r.poisoned_texts) { texts.add(t); planted.add(t); }
  }
  for (const t of planted) if (records.some((r) => r.clean_texts.includes(t))) planted.delete(t);
  return { texts: [...texts], planted };
}

/**
 * How a run's feedback reports the wrong answer (`--answer-form`). `given`: the record's answer as the file has it (a
 * span: "Charles Dickens"). A RAG app reports the answer it SERVED, and the widget and the SDK examples post it whole:
 * `framed` wraps the answer the way an assistant serves it (one of ANSWER_FRAMINGS, fixed by a hash of the question);
 * `sentence` reports the first sentence that states it in the texts served for the question before the report (the top K in
 * rank order), then in the record's texts (planted texts for an attack, clean texts for a false flag); token salad left
 * out — an extractive generator quoting its top context back, as the offline generator does. The
 * framings are the project's own wording of common assistant phrasing, not any dataset's.
 */
export type AnswerForm = 'given' | 'framed' | 'sentence';
export const ANSWER_FORMS: readonly AnswerForm[] = ['given', 'framed', 'sentence'];
export const ANSWER_FRAMINGS: readonly ((a: string) => string)[] = [
  (a) => `Based on the provided context, ${a}.`,
  (a) => `The answer is ${a}.`,
  (a) => `${a}, according to the documents.`,
  (a) => `As of my last update, ${a}.`,
];

/** The longest sentence the `sentence` form quotes: an app serves a sentence, not a paragraph without full stops. */
export const SERVED_SENTENCE_MAX_WORDS = 60;

export function reportedAnswer(answer: string, form: AnswerForm, question: string, texts: readonly string[]): string {
  if (form === 'given') return answer;
  const bare = answer.trim().replace(/[.!]+$/, '');
  const framed = () => ANSWER_FRAMINGS[createHash('sha256').update(question).digest().readUInt32BE(0) % ANSWER_FRAMINGS.length](bare);
  if (form === 'framed') return framed();
  // A generator serves prose: a sentence carrying token salad (an optimisation attack's prefix, a trigger's payload) or
  // longer than SERVED_SENTENCE_MAX_WORDS words is passed over.
  // Stated on word boundaries, normalised ("World War I" is not stated by "World War II", nor "24" by "240").
  for (const t of texts) {
    for (const s of quoteSentences(t)) { // as the offline generator splits
      if (s.split(/\s+/).length <= SERVED_SENTENCE_MAX_WORDS && longestContentRun(s) < TOKEN_SALAD_MIN_RUN && containsAnswer(s, bare)) return s.trim();
    }
  }
  return framed();
}
