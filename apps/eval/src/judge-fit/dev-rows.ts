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
  bm25TopK, buildBm25Index, OFFLINE_JUDGE_FEATURES, offlineJudgeFeatures, tokenize,
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
}

export interface DevRowOptions { pool: number; round: number; partialSupportMin: number; variants: readonly string[] }
export const DEFAULT_DEV_ROW_OPTIONS: DevRowOptions = { pool: 10, round: 5, partialSupportMin: 0.5, variants: DEV_VARIANTS };

/** Loads the development files present in `dataDir`; says which are missing. */
export function loadDevFiles(dataDir: string, files: readonly string[] = DEV_FILES): { file: string; records: EvalRecord[] }[] {
  const present = files.filter((f) => existsSync(join(dataDir, `${f}.jsonl`)));
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

export function buildDevRows(dev: readonly { file: string; records: readonly EvalRecord[] }[], options: Partial<DevRowOptions> = {}): DevRow[] {
  const o = { ...DEFAULT_DEV_ROW_OPTIONS, ...options };
  const rows: DevRow[] = [];
  for (const { file, records } of dev) {
    for (const r of records) {
      for (const set of poisonSetsOf(r, o.variants)) {
        // A text given both as clean and as poisoned is the attacker's (the harness counts it so too).
        const poisonSet = new Set(set.texts);
        const texts = [...new Set([...r.clean_texts, ...set.texts])];
        const ranked = bm25TopK(buildBm25Index(texts.map(tok)), tok(r.question), o.pool).map((h) => h.index);
        for (let s = 0; s < ranked.length; s += o.round) {
          const batch = ranked.slice(s, s + o.round);
          for (const i of batch) {
            const ev = offlineJudgeFeatures(
              { query: r.question, wrongAnswer: r.incorrect_answer, text: texts[i], peers: batch.filter((j) => j !== i).map((j) => texts[j]) },
              { partialSupportMin: o.partialSupportMin },
            );
            rows.push({
              file, poisonSet: set.name, question: `${file}/${r.id}`, poisoned: poisonSet.has(texts[i]), support: ev.support,
              verbatimLong: ev.verbatimLong, x: Float64Array.from(OFFLINE_JUDGE_FEATURES.map((f) => ev.features[f])),
            });
          }
        }
      }
    }
  }
  return rows;
}
