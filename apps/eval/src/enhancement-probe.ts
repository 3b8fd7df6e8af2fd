/**
 * Who may write what is served, measured (issues 54 and 56):
 * `[EMBEDDER=minilm] npx tsx apps/eval/src/enhancement-probe.ts [--limit N] [--ask-limit M] [--cache DIR] [--legacy] [--similarity-only]`.
 *
 * 1. **Query similarity** (the serving threshold): over the first N questions of every development file, the
 *    embedder's cosine between a question and its near-duplicates (case, a question mark, spacing, a trailing
 *    period), and between a question and every other question of its file. The threshold is chosen between them.
 * 2. **Through the use cases**, per file, one collection holding the N questions' texts (clean and planted):
 *    - *planted through tokens*: for each question the built-in RAG answers, a feedback token reports it with a
 *      planted "correct answer", the pipeline's enhancement step runs (`authority: 'report'`), and the question is
 *      asked again: is the planted answer served? Also with two distinct addresses agreeing (corroboration).
 *    - *served to another question*: reviewers set the correct answer of the first half of the questions; every
 *      question of the second half is asked: is any enhancement served to it? And the first half's own questions and
 *      their near-duplicates: is their own enhancement served?
 *    `--legacy` runs part 2 the way the code before this change behaved (every enhancement live, served whatever the
 *    asked question): the "before" figures.
 * Prints one JSON line per file and one of totals.
 */
import { IngestCorpusUseCase, AnswerQueryUseCase, AnswerFeedbackUseCase, EnhanceAnswerUseCase, type Embedder } from '@forensics/core';
import { composeUseCases, createInMemoryRepositories, InMemoryVectorStore } from '@forensics/core/testing';
import { OfflineGenerator } from '@forensics/infra/generators/offline-generator.adapter';
import { CachedEmbedder } from './cached-embedder.adapter';
import { loadEvalRecords, type EvalRecord } from './eval-data';
import { SUITE_FILES } from './suite-files';
import { join } from 'node:path';
import { TrivialAnswerJudge } from './trivial-judge';

const args = process.argv.slice(2);
const opt = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const LIMIT = Number(opt('--limit') ?? 100);
/** Questions per file run through the use cases (each file's texts are embedded: USE-lite does ~25 a second on 2 cores). */
const ASK_LIMIT = Number(opt('--ask-limit') ?? 12);
const CACHE = opt('--cache') ?? '.eval/embed-cache';
const LEGACY = args.includes('--legacy');
/** Part 1 only (the query similarity of the configured EMBEDDER), e.g. to measure the threshold of another encoder. */
const SIMILARITY_ONLY = args.includes('--similarity-only');
const DATA = join(__dirname, '..', '..', '..', '..', 'shared', 'data');

/** Surface variants a user types for the same question. */
export function nearDuplicates(q: string): string[] {
  const t = q.trim();
  const bare = t.replace(/[?.!]+$/u, '');
  const out = new Set([bare + '?', bare.toLowerCase(), bare.charAt(0).toUpperCase() + bare.slice(1) + '?', `  ${bare.replace(/ /gu, '  ')} `, bare + '.', bare.toUpperCase()]);
  out.delete(t);
  return [...out];
}

function cos(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) { s += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
  return s / Math.sqrt(na * nb);
}

const quantile = (xs: number[], q: number) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN; };

async function similarity(embedder: Embedder, files: Record<string, EvalRecord[]>) {
  const dup: number[] = [];
  const other: number[] = [];
  for (const records of Object.values(files)) {
    const qs = [...new Set(records.map((r) => r.question))];
    const qv = await embedder.embed(qs);
    for (let i = 0; i < qs.length; i++) {
      const vs = nearDuplicates(qs[i]);
      const dv = await embedder.embed(vs);
      for (const v of dv) dup.push(cos(qv[i], v));
      for (let j = 0; j < qs.length; j++) if (j !== i) other.push(cos(qv[i], qv[j]));
    }
  }
  const r4 = (x: number) => +x.toFixed(4);
  return {
    nearDuplicates: { pairs: dup.length, min: r4(dup.reduce((m, x) => Math.min(m, x), Infinity)), p01: r4(quantile(dup, 0.01)), p50: r4(quantile(dup, 0.5)) },
    otherQuestions: { pairs: other.length, max: r4(other.reduce((m, x) => Math.max(m, x), -Infinity)), p999: r4(quantile(other, 0.999)), p99: r4(quantile(other, 0.99)), p50: r4(quantile(other, 0.5)) },
    aboveAt: Object.fromEntries([0.8, 0.85, 0.9, 0.92, 0.94, 0.95, 0.96, 0.97, 0.98].map((t) => [t, { nearDuplicatesBelow: dup.filter((x) => x < t).length, otherQuestionsAtOrAbove: other.filter((x) => x >= t).length }])),
  };
}

async function throughUseCases(embedder: Embedder, name: string, records: EvalRecord[]) {
  const collection = 'kb';
  const build = () => {
    const repos = createInMemoryRepositories();
    const uc = composeUseCases({
      repos, store: new InMemoryVectorStore(), embedder, judge: new TrivialAnswerJudge(), generator: new OfflineGenerator(),
      settings: { defaultCollection: collection, ...(LEGACY ? { enhancementServing: { minQuerySimilarity: -1 } } : {}) },
    });
    return { repos, uc };
  };
  const ingest = async (uc: ReturnType<typeof build>['uc']) => {
    const texts = [...new Set(records.flatMap((r) => [...r.clean_texts, ...r.poisoned_texts]))];
    await uc.get(IngestCorpusUseCase).execute({ collection, records: texts.map((text) => ({ text })) });
  };
  const ask = async (uc: ReturnType<typeof build>['uc'], q: string) => uc.get(AnswerQueryUseCase).execute({ collection, query: q, k: 5 });
  const servedText = (r: Awaited<ReturnType<typeof ask>>) => r.contexts.map((c) => c.text).join('\n');

  // Planted "correct answers" through feedback tokens.
  let planted = 0, plantedServed = 0, corroboratedServed = 0;
  {
    const { uc } = build();
    await ingest(uc);
    for (const [i, r] of records.entries()) {
      const plant = `Zebulon Quist ${i}`;
      const first = await ask(uc, r.question);
      const report = async (source: string, answerId: string) => {
        const { event } = await uc.get(AnswerFeedbackUseCase).execute({ answerId, correctAnswer: plant, reporterSource: source });
        return uc.get(EnhanceAnswerUseCase).execute({ feedbackId: event.id, actor: 'probe', authority: LEGACY ? 'reviewer' : 'report' });
      };
      await report(`addr:one-${i}`, first.answerId);
      planted++;
      if (servedText(await ask(uc, r.question)).includes(plant)) plantedServed++;
      else {
        // A second address makes the same report with the same answer: corroborated, as a removal would be.
        const second = await ask(uc, r.question);
        await report(`addr:two-${i}`, second.answerId);
        if (servedText(await ask(uc, r.question)).includes(plant)) corroboratedServed++;
      }
    }
  }
  // An enhancement served to another question.
  const half = Math.floor(records.length / 2);
  let otherAsked = 0, otherServedEnhancement = 0, ownAsked = 0, ownServed = 0, dupAsked = 0, dupServed = 0;
  {
    const { uc } = build();
    await ingest(uc);
    for (const r of records.slice(0, half)) {
      const a = await ask(uc, r.question);
      const { event } = await uc.get(AnswerFeedbackUseCase).execute({ answerId: a.answerId, reporterSource: 'addr:x' });
      await uc.get(EnhanceAnswerUseCase).execute({ feedbackId: event.id, actor: 'reviewer', authority: 'reviewer', correctAnswer: r.correct_answer ?? 'unknown' });
    }
    for (const r of records.slice(half)) {
      otherAsked++;
      if ((await ask(uc, r.question)).enhanced) otherServedEnhancement++;
    }
    for (const r of records.slice(0, half)) {
      ownAsked++;
      if ((await ask(uc, r.question)).enhanced) ownServed++;
      for (const v of nearDuplicates(r.question)) {
        dupAsked++;
        if ((await ask(uc, v)).enhanced) dupServed++;
      }
    }
  }
  return { file: name, questions: records.length, planted, plantedServed, corroboratedServed, otherAsked, otherServedEnhancement, ownAsked, ownServed, dupAsked, dupServed };
}

async function main() {
  const embedder = await CachedEmbedder.openDefault(CACHE);
  const files: Record<string, EvalRecord[]> = {};
  for (const { file } of SUITE_FILES) files[file] = loadEvalRecords(join(DATA, `${file}.jsonl`), LIMIT).filter((r) => r.incorrect_answer);
  const sim = await similarity(embedder, files);
  console.log(JSON.stringify({ part: 'query-similarity', embedder: embedder.id, limit: LIMIT, ...sim }));
  if (SIMILARITY_ONLY) return;
  const totals = { planted: 0, plantedServed: 0, corroboratedServed: 0, otherAsked: 0, otherServedEnhancement: 0, ownAsked: 0, ownServed: 0, dupAsked: 0, dupServed: 0 };
  for (const [f, records] of Object.entries(files)) {
    if (!records.length) continue;
    const r = await throughUseCases(embedder, f, records.slice(0, ASK_LIMIT));
    console.log(JSON.stringify({ part: 'use-cases', legacy: LEGACY, ...r }));
    for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += r[k];
  }
  console.log(JSON.stringify({ part: 'totals', legacy: LEGACY, embedder: embedder.id, limit: LIMIT, askLimit: ASK_LIMIT, ...totals }));
}

if (require.main === module) main().catch((e) => { console.error(e); process.exit(1); });
