/**
 * Training rows of the offline judge, built from the development files the way the traceback
 * judges candidates: per question (and per poison set), the knowledge base clean ∪ poisoned texts is
 * ranked for the question by BM25, the top `pool` texts are judged in rounds of `round` (the other
 * texts of a round are the candidate's peers), and each row holds `offlineJudgeFeatures` — the very
 * function the judge scores with. The data is read in place; nothing is copied.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  bm25TopK, buildBm25Index, mulberry32, OFFLINE_JUDGE_FEATURES, offlineJudgeFeatures, tokenize, type JudgeRules,
} from '@forensics/algorithms';
import { loadEvalRecords, poisonedTextsOf, type EvalRecord } from '../eval-data';

/**
 * The development files (../shared/data, see its README): PoisonedRAG (NQ, HotpotQA) with their
 * GPT-4 / Gemini rewrites, RobustRAG (RealtimeQA, another domain), and GMTP's white-box HotFlip
 * PoisonedRAG texts and two trigger denial-of-service attacks whose "wrong answer" is a refusal
 * (the judge's question is the same: does the text try to make the model give that answer?).
 */
export const DEV_FILES: readonly string[] = Object.freeze([
  'poisonedrag_nq', 'poisonedrag_hotpotqa', 'robustrag_realtimeqa',
  'gmtp_poisonedrag-whitebox-hotflip_contriever_nq', 'gmtp_poisonedrag-whitebox-hotflip_contriever_hotpotqa',
  'gmtp_phantom-trigger-dos_contriever_nq', 'gmtp_phantom-trigger-dos_contriever_hotpotqa',
  'gmtp_advdecoding-trigger-dos_contriever_nq', 'gmtp_advdecoding-trigger-dos_contriever_hotpotqa',
]);

/**
 * Every file the judge is fitted on (issue 33): the development files above and the wider set added on
 * 2026-11-27 — GMTP's HotFlip texts optimised against DPR, RevPRAG's regenerated PoisonedRAG texts (another
 * generator, sentence-long answers; a seeded sample, `REVPRAG_SAMPLE`), and PoisonArena's attack zoo on NQ
 * (poisoned texts only; clean texts borrowed, see `loadJudgeFitFiles`). GARAG is left out: an untargeted
 * typo attack has no wrong answer to judge a text against.
 */
export const JUDGE_FIT_FILES: readonly string[] = Object.freeze([
  ...DEV_FILES,
  'gmtp_poisonedrag-whitebox-hotflip_dpr_nq', 'gmtp_poisonedrag-whitebox-hotflip_dpr_hotpotqa',
  'revprag_nq', 'revprag_hotpotqa',
  'poisonarena_nq_poisonedrag_black', 'poisonarena_nq_poisonedrag_white', 'poisonarena_nq_advdecoding',
  'poisonarena_nq_corpus_poison', 'poisonarena_nq_content_poison',
]);

/**
 * The attack family of a file: the generator that wrote its poison (issue 33). A judge measured on a family
 * is fitted without every file of that family. PoisonedRAG's GPT-4 / Gemini rewrites go with PoisonedRAG.
 */
export function familyOf(file: string): string {
  if (/^poisonedrag_/.test(file)) return 'poisonedrag';
  if (/^gmtp_poisonedrag-whitebox-hotflip_/.test(file)) return 'hotflip';
  if (/^gmtp_.*-trigger-dos_/.test(file)) return 'trigger';
  if (/^revprag_/.test(file)) return 'revprag';
  if (/^poisonarena_/.test(file)) return 'poisonarena';
  if (/^robustrag_/.test(file)) return 'realtimeqa';
  return file;
}

/** Questions taken from each RevPRAG file (3000 each), by a seeded shuffle (`REVPRAG_SEED`). */
export const REVPRAG_SAMPLE = 150;
export const REVPRAG_SEED = 20261127;
/**
 * An LLM's refusal to write the poison ("I'm sorry, but I can't fulfill this request."): RevPRAG's
 * generator left some in place of poisoned texts (its MANIFEST entry counts them, `refusal_texts`). Such a
 * text tries to induce nothing; as a positive it would teach the judge that stating nothing is an attack.
 * Dropped from the poisons unless the wrong answer is itself a refusal (the trigger attacks' target).
 */
export function isGeneratorRefusal(text: string, wrongAnswer: string): boolean {
  const refusal = (s: string) => /^\s*(i['’]m sorry|i am sorry|i apologi[sz]e|i can['’]?t|i cannot|sorry, but)/i.test(s);
  return text.length < 300 && refusal(text) && !refusal(wrongAnswer);
}

function seededSample<T>(items: readonly T[], n: number, seed: number): T[] {
  const rand = mulberry32(seed);
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); [a[i], a[j]] = [a[j], a[i]]; }
  return a.slice(0, n);
}

/**
 * Loads `JUDGE_FIT_FILES` present in `dataDir` for the fit: RevPRAG sampled (`REVPRAG_SAMPLE` questions
 * per file, seeded), generator refusals dropped from the poisons. A file without clean texts of its own
 * (PoisonArena; RevPRAG but for 252 NQ questions) gives positives only: it is measured on false negatives,
 * as its README says, and weighs on that side of the fit only (`fitOfflineJudge` weights each file's poisoned
 * and clean texts separately). Borrowing other questions' clean texts was tried and dropped: they almost never
 * state the wrong answer, so they only diluted the false-positive rate.
 */
export function loadJudgeFitFiles(dataDir: string, files: readonly string[] = JUDGE_FIT_FILES, sample = REVPRAG_SAMPLE): { file: string; records: EvalRecord[] }[] {
  return loadDevFiles(dataDir, files).map(({ file, records }) => ({
    file,
    records: (familyOf(file) === 'revprag' ? seededSample(records, sample, REVPRAG_SEED) : records).map((r) => ({
      ...r, poisoned_texts: r.poisoned_texts.filter((t) => !isGeneratorRefusal(t, r.incorrect_answer)),
    })).filter((r) => r.poisoned_texts.length > 0),
  }));
}

/** Rewritten poison sets used as extra events of the same questions (first `VARIANT_COUNT` texts each). */
export const DEV_VARIANTS: readonly string[] = Object.freeze(['gpt4', 'gemini_100']);
export const VARIANT_COUNT = 5;

export interface DevRow {
  /** The development file the row comes from (the unit of leave-one-file-out). */
  file: string;
  /** `given` or a variant name. */
  poisonSet: string;
  question: string;
  poisoned: boolean;
  support: number;
  /** Decided by the long-verbatim prior (score 1 whatever the weights). */
  verbatimLong: boolean;
  /** Features in OFFLINE_JUDGE_FEATURES order. */
  x: Float64Array;
  /** A row of the one-planted-text scenario (`DevRowOptions.sparse`): the knowledge base held one planted text of its set. */
  sparse?: boolean;
  /** The event's wrong answer and the judged text (the record's own strings, for error listings). */
  wrongAnswer?: string;
  text?: string;
  /** What the reader reads (reader-rows.ts): the question, the answer as the rule judge read it, its claim sentences and every sentence. */
  query?: string;
  answerRead?: string;
  claims?: readonly string[];
  sentences?: readonly string[];
}

/**
 * `sparse`: besides each poison set as given (five planted texts per question), the same question with only the
 * set's first planted text in the knowledge base. An attacker chooses how many texts to plant; a judge fitted on
 * groups of five learns that a planted text has peers stating its answer (`agreement`, `closeCopies`,
 * `supportingPeerShare`) and misses a lone one (decision 0290).
 */
export interface DevRowOptions { pool: number; round: number; partialSupportMin: number; variants: readonly string[]; rules?: Readonly<JudgeRules>; sparse: boolean }
export const DEFAULT_DEV_ROW_OPTIONS: DevRowOptions = { pool: 10, round: 5, partialSupportMin: 0.5, variants: DEV_VARIANTS, sparse: false };

/** The files of `files` present in `dataDir` (their names, nothing read). */
export function presentDevFiles(dataDir: string, files: readonly string[] = DEV_FILES): string[] {
  return files.filter((f) => existsSync(join(dataDir, `${f}.jsonl`)));
}

/** Loads the development files present in `dataDir`; says which are missing. */
export function loadDevFiles(dataDir: string, files: readonly string[] = DEV_FILES): { file: string; records: EvalRecord[] }[] {
  const present = presentDevFiles(dataDir, files);
  if (!present.length) throw new Error(`no development data in ${dataDir} (expected ${files.map((f) => `${f}.jsonl`).join(', ')}); it lives in ../shared/data (see its README.md)`);
  return present.map((file) => ({ file, records: loadEvalRecords(join(dataDir, `${file}.jsonl`)) }));
}

const tok = (s: string) => tokenize(s, { removeStopwords: true, stem: true });

/** The poison sets of a record: its own texts and every available variant (first VARIANT_COUNT). */
export function poisonSetsOf(r: EvalRecord, variants: readonly string[]): { name: string; texts: string[] }[] {
  const sets = [{ name: 'given', texts: r.poisoned_texts }];
  for (const v of variants) if (Array.isArray(r.poisoned_variants?.[v]) && r.poisoned_variants![v].length) sets.push({ name: v, texts: poisonedTextsOf(r, v, VARIANT_COUNT) });
  return sets;
}

/**
 * Rows with the attack family as their unit — `file` becomes the family, `poisonSet` "file:set" — as the committed judge
 * is fitted and held out (scripts/fit-offline-judge.ts, and the suite's family fits: decision 0300).
 */
export function byFamily(rows: readonly DevRow[]): DevRow[] {
  return rows.map((r) => ({ ...r, file: familyOf(r.file), poisonSet: `${r.file}:${r.poisonSet}` }));
}

export function buildDevRows(dev: readonly { file: string; records: readonly EvalRecord[] }[], options: Partial<DevRowOptions> = {}): DevRow[] {
  const o = { ...DEFAULT_DEV_ROW_OPTIONS, ...options };
  const rows: DevRow[] = [];
  for (const { file, records } of dev) {
    for (const r of records) {
      const sets = poisonSetsOf(r, o.variants);
      const scenarios = [...sets.map((set) => ({ ...set, sparse: false })), ...(o.sparse ? sets.filter((set) => set.texts.length > 1).map((set) => ({ name: `${set.name}/1`, texts: set.texts.slice(0, 1), sparse: true })) : [])];
      for (const set of scenarios) {
        // A text given both as clean and as poisoned is the attacker's (the harness counts it so too).
        const poisonSet = new Set(set.texts);
        const texts = [...new Set([...r.clean_texts, ...set.texts])];
        const ranked = bm25TopK(buildBm25Index(texts.map(tok)), tok(r.question), o.pool).map((h) => h.index);
        // The first round is what the user was served: every round reads a quoted answer against it (the traceback's `context`).
        const served = ranked.slice(0, o.round).map((j) => texts[j]);
        for (let s = 0; s < ranked.length; s += o.round) {
          const batch = ranked.slice(s, s + o.round);
          for (const i of batch) {
            const ev = offlineJudgeFeatures(
              { query: r.question, wrongAnswer: r.incorrect_answer, text: texts[i], peers: batch.filter((j) => j !== i).map((j) => texts[j]), context: served },
              { partialSupportMin: o.partialSupportMin },
              o.rules,
            );
            rows.push({
              file, poisonSet: set.name, question: `${file}/${r.id}`, poisoned: poisonSet.has(texts[i]), support: ev.support,
              verbatimLong: ev.verbatimLong, x: Float64Array.from(OFFLINE_JUDGE_FEATURES.map((f) => ev.features[f])), wrongAnswer: r.incorrect_answer, text: texts[i],
              query: r.question, answerRead: ev.answer ?? r.incorrect_answer, claims: ev.claimSentences, sentences: ev.sentences ?? [],
              ...(set.sparse ? { sparse: true } : {}),
            });
          }
        }
      }
    }
  }
  return rows;
}
