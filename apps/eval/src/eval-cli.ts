import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { READER_JUDGE_FIT, type OfflineJudgeParams } from '@forensics/algorithms';
import type { Embedder, Judge } from '@forensics/core';
import { loadConfig } from '@forensics/infra/config/app-config';
import { createEmbedder } from '@forensics/infra/embedders/embedder.factory';
import { OfflineJudge } from '@forensics/infra/judges/offline-judge.adapter';
import { OpenAiJudge } from '@forensics/infra/judges/openai-judge.adapter';
import { ReaderJudge, type ReaderJudgeFit } from '@forensics/infra/judges/reader-judge.adapter';
import { MINILM_ID } from '@forensics/infra/embedders/embedder.factory';
import { modelsDirOf } from '@forensics/infra/config/app-config';
import { cachedMiniLmReader } from './judge-fit/reader-rows';
import offlineJudgeFit from '../../../libs/forensics/src/offline-judge/offline-judge.fitted.json';
import { CachedEmbedder } from './cached-embedder.adapter';
import { dataName, EvalDataError, loadEvalRecords } from './eval-data';
import { writeReport, summaryLine, type ReportMeta } from './report';
import { runEvaluation, type JudgeSummary, type RetrieverKind } from './run-evaluation';
import { parseEvalArgs, UsageError, type EvalCliOptions, type EvalCliOverrides, type EvalCliResult } from './eval-options';
import { runSuite } from './suite';
import { TrivialAnswerJudge } from './trivial-judge';

// The options and result types live in eval-options.ts (shared with suite.ts, which eval-cli dispatches to).
export { EVAL_USAGE, parseEvalArgs, UsageError, type EvalCliOptions, type EvalCliOverrides, type EvalCliResult } from './eval-options';

/** The reader judge on all-MiniLM-L6-v2 from MODELS_DIR, its features cached beside the embedding cache; the committed fit unless `fit` is given. */
function buildReaderJudge(env: NodeJS.ProcessEnv, cacheDir: string, fit?: ReaderJudgeFit): { judge: Judge; close: () => Promise<void> } {
  const modelDir = join(modelsDirOf(env.MODELS_DIR), MINILM_ID);
  if (!existsSync(join(modelDir, 'model.onnx'))) throw new UsageError(`--judge reader needs ${modelDir}/model.onnx: run \`npm run models\` (or point MODELS_DIR at your own copy), or use --judge offline`);
  const { cached, close } = cachedMiniLmReader(cacheDir, env);
  return { judge: new ReaderJudge(cached, fit ?? READER_JUDGE_FIT), close };
}

function buildJudge(kind: EvalCliOptions['judge'], env: NodeJS.ProcessEnv, offlineParams?: Partial<OfflineJudgeParams>): Judge {
  switch (kind) {
    case 'reader':
      throw new Error('buildJudge: the reader judge is built by buildReaderJudge');
    case 'offline':
      return new OfflineJudge(offlineParams);
    case 'trivial':
      return new TrivialAnswerJudge();
    case 'openai':
      if (!env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) throw new UsageError('--judge openai needs OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI endpoint)');
      return new OpenAiJudge({ baseURL: env.OPENAI_BASE_URL || 'https://api.openai.com/v1', apiKey: env.OPENAI_API_KEY || 'not-needed', model: env.JUDGE_MODEL || 'gpt-4o-mini' });
    case 'llama':
      return new OpenAiJudge({ baseURL: env.LLAMA_BASE_URL || 'http://127.0.0.1:8080/v1', apiKey: env.LLAMA_API_KEY || 'not-needed', model: env.LLAMA_MODEL || 'llama' });
  }
}

/** A progress bar on stderr (a line per 10 % when stderr is not a terminal). */
export function progressBar(stream: NodeJS.WriteStream = process.stderr): (done: number, total: number, label: string) => void {
  const t0 = Date.now();
  let lastDecile = -1;
  return (done, total, label) => {
    const frac = total ? done / total : 1;
    const eta = done ? ((Date.now() - t0) / done) * (total - done) / 1000 : 0;
    const text = `[${'#'.repeat(Math.round(frac * 30)).padEnd(30, '.')}] ${done}/${total} ${(frac * 100).toFixed(0)}% eta ${eta.toFixed(0)}s ${label}`;
    if (stream.isTTY) stream.write(`\r${text.slice(0, (stream.columns ?? 100) - 1).padEnd((stream.columns ?? 100) - 1)}${done === total ? '\n' : ''}`);
    else if (Math.floor(frac * 10) > lastDecile) { lastDecile = Math.floor(frac * 10); stream.write(`${text}\n`); }
  };
}

/**
 * The `eval` command: loads the data, builds the judge(s) and the retriever, runs the traceback of
 * every question through `RunTracebackUseCase` (see run-evaluation.ts), writes the report and
 * returns the one-line summary. `overrides` lets tests inject an embedder, and
 * scripts/fit-offline-judge.ts run the offline judge with other weights (`offlineParams`, e.g.
 * weights fitted without the file under evaluation; the report then shows those, not the committed fit).
 */
export async function runEvalCli(
  argv: readonly string[],
  overrides: EvalCliOverrides = {},
): Promise<EvalCliResult> {
  const opts = parseEvalArgs(argv);
  if (opts.suite) return runSuite(opts, overrides, runEvalCli);
  const env = overrides.env ?? process.env;
  const log = overrides.log ?? ((s: string) => process.stderr.write(`${s}\n`));
  const file = resolve(opts.data);
  if (!existsSync(file)) {
    throw new EvalDataError(`evaluation data not found: ${file}\n  The shared third-party data lives in ../shared/data/ (see its README.md) and is not part of this repository; it is absent on this machine or --data points elsewhere.`);
  }
  const started = Date.now();
  const skipped: string[] = [];
  const records = overrides.records ? (opts.limit ? overrides.records.slice(0, opts.limit) : overrides.records) : loadEvalRecords(file, opts.limit, (where, reason) => skipped.push(`${where}: ${reason}`));
  if (skipped.length) log(`skipped ${skipped.length} record(s) without a usable feedback event (first: ${skipped[0]})`);
  const name = dataName(file);
  const config = loadConfig({ ...env, JUDGE: 'offline' });
  const trace = { maxRounds: config.trace.maxRounds, maxJudgeCalls: config.trace.maxJudgeCalls, judgeConcurrency: config.trace.judgeConcurrency };

  let embedder: Embedder | undefined;
  let cached: CachedEmbedder | undefined;
  if (opts.retriever === 'embed') {
    if (overrides.embedder) embedder = overrides.embedder;
    else {
      const inner = createEmbedder({
        kind: config.embedder.kind,
        onnxModelDir: config.embedder.onnxModelDir,
        openai: config.embedder.kind === 'openai' ? { baseURL: config.openai.baseURL ?? 'https://api.openai.com/v1', apiKey: config.openai.apiKey ?? '', model: config.embedder.model ?? 'text-embedding-3-small', dimension: config.embedder.dimension } : undefined,
      });
      cached = CachedEmbedder.inDir(inner, opts.cacheDir);
      embedder = cached;
      await cached.init();
      log(`embedding cache ${cached.file}: ${cached.size} vectors`);
    }
  }

  const readerJudge = opts.judge === 'reader' ? buildReaderJudge(env, opts.cacheDir, overrides.readerFit) : undefined;
  const judges = [{ name: opts.judge, judge: readerJudge?.judge ?? buildJudge(opts.judge, env, overrides.offlineParams) }];
  if (opts.baseline && opts.judge !== 'trivial') judges.push({ name: 'trivial', judge: new TrivialAnswerJudge() });
  const summaries = await runEvaluation({
    records, k: opts.k, retriever: opts.retriever, embedder, judges, trace, poisonSet: opts.poisonSet, poisonCount: opts.poisonCount, falseFlag: opts.falseFlag, consensus: config.consensus, policy: config.policy, trust: config.trust,
    ...(opts.attackTrust ? { attackTrust: opts.attackTrust } : {}), vetted: opts.vetted, ...(opts.vettedShare !== undefined ? { vettedShare: opts.vettedShare } : {}), answerForm: opts.answerForm,
    onProgress: opts.quiet ? undefined : progressBar(),
  });
  await embedder?.close();
  await readerJudge?.close();

  const suffix = [opts.falseFlag ? `false-flag-${opts.falseFlag.trust}` : '', opts.vetted !== 'none' ? `vetted-${opts.vetted}${opts.vettedShare !== undefined ? `-${Math.round(opts.vettedShare * 100)}` : ''}` : '', opts.answerForm !== 'given' ? `answer-${opts.answerForm}` : '', opts.poisonSet !== 'given' ? opts.poisonSet : '', opts.retriever !== 'embed' ? opts.retriever : '', opts.judge !== 'offline' ? opts.judge : ''].filter(Boolean).join('-');
  const out = resolve(opts.out ?? join('.eval', suffix ? `${name}-${suffix}` : name));
  const meta: ReportMeta = {
    data: name, file, retriever: opts.retriever, embedder: opts.retriever === 'bm25' ? 'BM25 (k1 1.2, b 0.75) via text handles' : embedder!.id, k: opts.k,
    poisonSet: opts.poisonSet, poisonCount: opts.poisonCount ?? null, answerForm: opts.answerForm, vetted: opts.vetted, ...(opts.vettedShare !== undefined ? { vettedShare: opts.vettedShare } : {}), trace, wallSeconds: (Date.now() - started) / 1000, startedAt: new Date(started).toISOString(),
    embeddingCache: cached ? { file: cached.file, hits: cached.hits, misses: cached.misses } : undefined,
    skippedRecords: skipped.length,
    offlineJudgeFit: opts.judge === 'offline' ? (overrides.offlineJudgeFit ?? (overrides.offlineParams ? undefined : (offlineJudgeFit as unknown as ReportMeta['offlineJudgeFit'])))
      : opts.judge === 'reader' ? (overrides.offlineJudgeFit ?? (overrides.readerFit ? undefined : (READER_JUDGE_FIT as unknown as ReportMeta['offlineJudgeFit']))) : undefined,
  };
  const files = writeReport(out, meta, summaries);
  log(`report: ${join(out, 'report.md')}`);
  return { line: summaryLine(meta, summaries[0]), files, out, summary: summaries[0] };
}
