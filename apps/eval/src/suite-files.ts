/**
 * The files of `--suite dev` and the attack family of each (issue 33): the unit of held-out
 * evaluation is the generator that wrote the poison, not the file — two files of one generator
 * (NQ and HotpotQA of PoisonedRAG, say) share its phrasing, so leaving one file out still lets the
 * fit see the other and reads better than a new user's data does.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadEvalRecords, type EvalRecord } from './eval-data';

/** Attack families: who wrote the poison (see ../shared/data/README.md). */
export type AttackFamily = 'poisonedrag' | 'hotflip' | 'revprag' | 'poisonarena' | 'trigger' | 'realtimeqa';
export const ATTACK_FAMILIES: readonly AttackFamily[] = ['poisonedrag', 'hotflip', 'revprag', 'poisonarena', 'trigger', 'realtimeqa'];

export interface SuiteFile {
  file: string;
  family: AttackFamily;
  /**
   * A seeded subsample of the file's records (RevPRAG: 3,000 questions a file, too many to embed on
   * this machine per run): `withClean` keeps only records that have clean texts first; `count` the
   * number drawn (seed `SUITE_SEED`, `seededSample`).
   */
  sample?: { count: number; withClean: boolean };
}

/** The seed of every subsample of the suite (fixed: the same questions in every run). */
export const SUITE_SEED = 33;

/**
 * Every development file. PoisonArena's `garag` is left out: an untargeted typo attack has no wrong
 * answer, so no feedback event (question, wrong answer) can be formed for it. PoisonArena's files and
 * RevPRAG's HotpotQA file have no clean texts: they count for recall and hit rates only.
 */
export const SUITE_FILES: readonly SuiteFile[] = Object.freeze([
  { file: 'poisonedrag_nq', family: 'poisonedrag' },
  { file: 'poisonedrag_hotpotqa', family: 'poisonedrag' },
  { file: 'robustrag_realtimeqa', family: 'realtimeqa' },
  { file: 'gmtp_poisonedrag-whitebox-hotflip_contriever_nq', family: 'hotflip' },
  { file: 'gmtp_poisonedrag-whitebox-hotflip_contriever_hotpotqa', family: 'hotflip' },
  { file: 'gmtp_poisonedrag-whitebox-hotflip_dpr_nq', family: 'hotflip' },
  { file: 'gmtp_poisonedrag-whitebox-hotflip_dpr_hotpotqa', family: 'hotflip' },
  { file: 'gmtp_phantom-trigger-dos_contriever_nq', family: 'trigger' },
  { file: 'gmtp_phantom-trigger-dos_contriever_hotpotqa', family: 'trigger' },
  { file: 'gmtp_advdecoding-trigger-dos_contriever_nq', family: 'trigger' },
  { file: 'gmtp_advdecoding-trigger-dos_contriever_hotpotqa', family: 'trigger' },
  { file: 'revprag_nq', family: 'revprag', sample: { count: 100, withClean: true } },
  { file: 'revprag_hotpotqa', family: 'revprag', sample: { count: 100, withClean: false } },
  { file: 'poisonarena_nq_poisonedrag_black', family: 'poisonarena' },
  { file: 'poisonarena_nq_poisonedrag_white', family: 'poisonarena' },
  { file: 'poisonarena_nq_advdecoding', family: 'poisonarena' },
  { file: 'poisonarena_nq_corpus_poison', family: 'poisonarena' },
  { file: 'poisonarena_nq_content_poison', family: 'poisonarena' },
]);

/** Mulberry32: a small seeded PRNG (uniform in [0, 1)). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` items drawn without replacement (partial Fisher–Yates with `mulberry32(seed)`), in their original order. */
export function seededSample<T>(items: readonly T[], count: number, seed: number): T[] {
  if (count >= items.length) return [...items];
  const rnd = mulberry32(seed);
  const idx = items.map((_, i) => i);
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(rnd() * (idx.length - i));
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  return idx.slice(0, count).sort((a, b) => a - b).map((i) => items[i]!);
}

export interface LoadedSuiteFile extends SuiteFile { records: EvalRecord[]; hasClean: boolean }

/**
 * A fixed sample of events (issue 60 item 2: the LLM judge is too slow on this machine for every record): record ids
 * per suite file, `perFamily` of them per attack family, drawn once (`buildEventSample`) and committed, so a run on
 * another day or with another judge reads the same events (`--suite dev --sample FILE`).
 */
export interface EventSample {
  about: string;
  seed: number;
  perFamily: number;
  files: Record<string, string[]>;
}

/** `perFamily` records of each family, drawn from the family's files together (seeded), listed per file in file order. */
export function buildEventSample(loaded: readonly LoadedSuiteFile[], perFamily: number, seed = SUITE_SEED): EventSample {
  const files: Record<string, string[]> = {};
  for (const family of ATTACK_FAMILIES) {
    const pool = loaded.filter((f) => f.family === family).flatMap((f) => f.records.map((r) => ({ file: f.file, id: r.id })));
    for (const { file, id } of seededSample(pool, perFamily, seed)) (files[file] ??= []).push(id);
  }
  return { about: `${perFamily} events per attack family of --suite dev (seed ${seed}), by record id; read by npm run eval -- --suite dev --sample FILE`, seed, perFamily, files };
}

/** Keeps the sample's records (a file it does not name is left out); an id the file lacks is an error, not a smaller sample. */
function restrictToSample(loaded: LoadedSuiteFile[], sample: EventSample): LoadedSuiteFile[] {
  return loaded.filter((f) => sample.files[f.file]?.length).map((f) => {
    const ids = new Set(sample.files[f.file]);
    const records = f.records.filter((r) => ids.has(r.id));
    if (records.length !== ids.size) throw new Error(`the event sample names ${ids.size} records of ${f.file}, the file has ${records.length} of them`);
    return { ...f, records, hasClean: records.some((r) => r.clean_texts.length > 0) };
  });
}

/** Loads the suite's files present in `dataDir` (subsampled where the spec says, then to `sample` when given); `absent` names the others. */
export function loadSuiteFiles(dataDir: string, files: readonly SuiteFile[] = SUITE_FILES, sample?: EventSample): { loaded: LoadedSuiteFile[]; absent: string[] } {
  const loaded: LoadedSuiteFile[] = [];
  const absent: string[] = [];
  for (const f of files) {
    const path = join(dataDir, `${f.file}.jsonl`);
    if (!existsSync(path)) { absent.push(f.file); continue; }
    let records = loadEvalRecords(path);
    if (f.sample) {
      const pool = f.sample.withClean ? records.filter((r) => r.clean_texts.length > 0) : records;
      records = seededSample(pool, f.sample.count, SUITE_SEED);
    }
    loaded.push({ ...f, records, hasClean: records.some((r) => r.clean_texts.length > 0) });
  }
  return { loaded: sample ? restrictToSample(loaded, sample) : loaded, absent };
}

export function familyOf(file: string, files: readonly SuiteFile[] = SUITE_FILES): AttackFamily {
  const f = files.find((x) => x.file === file);
  if (!f) throw new Error(`no attack family for ${file}`);
  return f.family;
}
