/**
 * The reader's features on the judge's training rows (issue 59): each row of dev-rows.ts gets the reader's
 * features (`READER_FEATURES`, computed by `MiniLmReader` from all-MiniLM-L6-v2) after the rule judge's, so the same
 * fit (fit-judge.ts) selects and weighs both, refit per held-out family. Only rows whose text states the answer are
 * read (the others score 0 whatever the weights: `evidenceScore`). Features are cached on disk by what they are
 * computed from (`CachedReader`), so a refit, the suite's family fits and its tracebacks read the encoder once.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { OFFLINE_JUDGE_FEATURES, READER_FEATURES, type ReaderFeatures } from '@forensics/algorithms';
import { MINILM_ID, MiniLmReader, modelsDirOf, OnnxEmbedder, type ReaderInput, type TextReader } from '@forensics/infra';
import type { DevRow } from './dev-rows';

/** The fit's feature list when the reader is on: the rule judge's, then the reader's. */
export const READER_JUDGE_FEATURES: readonly string[] = Object.freeze([...OFFLINE_JUDGE_FEATURES, ...READER_FEATURES]);

export function readerInputOf(r: DevRow): ReaderInput {
  return { query: r.query ?? '', answer: r.answerRead ?? r.wrongAnswer ?? '', text: r.text ?? '', claims: r.claims ?? [], sentences: r.sentences ?? [] };
}

export function readerKey(modelId: string, i: ReaderInput): string {
  return createHash('sha256').update(JSON.stringify([modelId, i.query, i.answer, i.text, i.claims, i.sentences])).digest('hex').slice(0, 32);
}

/** The default cache file of a reader's features (under the eval folder, git-ignored). */
export function readerCachePath(dir: string, modelId: string): string {
  return join(dir, `reader-features-${modelId}.jsonl`);
}

/** A reader whose features are kept in a JSONL file (`{k, f}` lines, appended as they are computed). */
export class CachedReader implements TextReader {
  private readonly cache = new Map<string, number[]>();
  hits = 0;
  misses = 0;

  constructor(private readonly inner: TextReader, readonly file: string) {
    if (existsSync(file)) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (!line) continue;
        const { k, f } = JSON.parse(line) as { k: string; f: number[] };
        this.cache.set(k, f);
      }
    } else mkdirSync(dirname(file), { recursive: true });
  }

  get id(): string { return this.inner.id; }
  get size(): number { return this.cache.size; }
  has(input: ReaderInput): boolean { return this.cache.has(readerKey(this.id, input)); }

  async read(input: ReaderInput): Promise<ReaderFeatures> {
    const k = readerKey(this.id, input);
    let v = this.cache.get(k);
    if (v) this.hits++;
    else {
      this.misses++;
      const f = await this.inner.read(input);
      v = READER_FEATURES.map((n) => Math.round(f[n] * 1e5) / 1e5);
      this.cache.set(k, v);
      appendFileSync(this.file, `${JSON.stringify({ k, f: v })}\n`);
    }
    return Object.fromEntries(READER_FEATURES.map((n, i) => [n, v![i]])) as unknown as ReaderFeatures;
  }
}

/** all-MiniLM-L6-v2 from MODELS_DIR behind the feature cache of `cacheDir` (the fit script's, the suite's and the eval's reader). */
export function cachedMiniLmReader(cacheDir: string, env: NodeJS.ProcessEnv = process.env): { cached: CachedReader; close: () => Promise<void> } {
  const reader = new MiniLmReader(new OnnxEmbedder({ modelDir: join(modelsDirOf(env.MODELS_DIR), MINILM_ID), id: MINILM_ID }));
  return { cached: new CachedReader(reader, readerCachePath(cacheDir, MINILM_ID)), close: () => reader.close() };
}

/** Rows with the reader's features appended (zeros where the text does not state the answer); a progress line every 1,000 texts read. */
export async function withReaderFeatures(rows: readonly DevRow[], reader: CachedReader, log: (s: string) => void = () => undefined): Promise<DevRow[]> {
  const read = (r: DevRow) => r.support > 0 && !r.verbatimLong;
  const todo = new Set(rows.filter((r) => read(r) && !reader.has(readerInputOf(r))).map((r) => readerKey(reader.id, readerInputOf(r))));
  if (todo.size) log(`reader: ${todo.size} texts to read (${reader.size} cached in ${reader.file})`);
  const started = Date.now();
  const before = reader.misses;
  const zeros = READER_FEATURES.map(() => 0);
  const out: DevRow[] = [];
  for (const r of rows) {
    let f = zeros;
    if (read(r)) {
      const features = await reader.read(readerInputOf(r));
      f = READER_FEATURES.map((n) => features[n]);
      const done = reader.misses - before;
      if (done && done % 1000 === 0) log(`reader: ${done}/${todo.size} (${((Date.now() - started) / done).toFixed(1)} ms per text)`);
    }
    const x = new Float64Array(r.x.length + READER_FEATURES.length);
    x.set(r.x);
    x.set(f, r.x.length);
    out.push({ ...r, x });
  }
  return out;
}
