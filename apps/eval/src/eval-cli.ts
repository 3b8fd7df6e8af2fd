import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { OfflineJudgeParams } from '@forensics/algorithms';
import type { Embedder, Judge } from '@forensics/core';
import { loadConfig } from '@forensics/infra/config/app-config';
import { createEmbedder } from '@forensics/infra/embedders/embedder.factory';
import { OfflineJudge } from '@forensics/infra/judges/offline-judge.adapter';
import { OpenAiJudge } from '@forensics/infra/judges/openai-judge.adapter';
import offlineJudgeFit from '../../../libs/forensics/src/offline-judge/offline-judge.fitted.json';
import { CachedEmbedder } from './cached-embedder.adapter';
import { dataName, EvalDataError, loadEvalRecords } from './eval-data';
import { writeReport, summaryLine, type ReportMeta } from './report';
import { runEvaluation, type JudgeSummary, type RetrieverKind } from './run-evaluation';
import { runSuite } from './suite';
import { TrivialAnswerJudge } from './trivial-judge';

export const EVAL_USAGE = `usage: npm run -s eval -- --data FILE.jsonl [--judge offline|openai|llama|trivial] [--k 5] [--limit N]
   or: npm run -s eval -- --suite dev [--data-dir ../shared/data] [--judge …] [--retriever …] [--k 5] [--limit N] [--out DIR]
                          [--false-flag [--trust anonymous|identified]]
  --suite dev     every development file of --data-dir and its GPT-4 / Gemini rewrites (first 5 each), one table; with the
                  offline judge each file is traced with a judge refit WITHOUT that file (leave-one-file-out: gate, features,
                  weights, threshold, band); report.md with plots in --out (default .eval/suite-dev); with --false-flag,
                  one false-flag run per file (its clean texts, the correct answer reported as wrong), same refit judges,
                  one table (default --out .eval/suite-dev-false-flag-<trust>)
         [--out DIR] [--retriever embed|bm25] [--baseline] [--poison-set given|gpt4|gemini|gemini_100] [--poison-count N]
         [--cache DIR] [--quiet] [--false-flag [--trust anonymous|identified]]
  --data          JSONL records (e.g. ../shared/data/poisonedrag_nq.jsonl); the data is read in place, never copied
  --judge         offline (default, no LLM) | openai (OPENAI_API_KEY, OPENAI_BASE_URL, JUDGE_MODEL)
                  | llama (an OpenAI-compatible llama.cpp server: LLAMA_BASE_URL, default http://127.0.0.1:8080/v1; LLAMA_MODEL)
                  | trivial ("the text contains the wrong answer")
  --retriever     embed (default: the configured embedder, EMBEDDER / ONNX_MODEL_DIR, USE-lite by default, with a
                  disk cache by sha256 of the text) | bm25 (Okapi BM25 over the question's words)
  --baseline      also measure the trivial judge in the same run, and quote the paper's Table 1 rows
  --poison-set    the record's poisoned_texts (given) or one of its poisoned_variants; --poison-count keeps the first N
  --false-flag    the report names the record's CORRECT answer as wrong, over its clean texts only (no poisons);
                  counts benign texts judged / auto-quarantined and suspected false flags ("falseFlag" in the line)
  --trust         reporter trust of --false-flag reports: anonymous (default, what a feedback token gets) | identified
  --out           report folder (default .eval/<data-name>[-<poison-set>][-<retriever>][-<judge>] for non-defaults)
CONSENSUS_CHECK=off measures without the consensus check; DECISION_POLICY=corroborated measures that policy. Trace bounds come from TRACE_MAX_ROUNDS / TRACE_MAX_JUDGE_CALLS / JUDGE_CONCURRENCY (defaults 10 / 50 / 4).`;

export class UsageError extends Error {}

export interface EvalCliOptions {
  data: string;
  judge: 'offline' | 'openai' | 'llama' | 'trivial';
  k: number;
  limit?: number;
  out?: string;
  retriever: RetrieverKind;
  baseline: boolean;
  poisonSet: string;
  poisonCount?: number;
  cacheDir: string;
  quiet: boolean;
  falseFlag?: { trust: 'anonymous' | 'identified' };
  /** `--suite dev`: run every development file (see suite.ts); `data` is then unused. */
  suite?: { name: 'dev'; dataDir: string };
}

export function parseEvalArgs(argv: readonly string[]): EvalCliOptions {
  const flags = new Set(['baseline', 'quiet', 'false-flag']);
  const known = new Set(['data', 'suite', 'data-dir', 'judge', 'k', 'limit', 'out', 'retriever', 'poison-set', 'poison-count', 'cache', 'trust', ...flags]);
  const v: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument '${a}'`);
    const [name, inline] = a.slice(2).split(/=(.*)/s, 2);
    if (!known.has(name)) throw new UsageError(`unknown option --${name}`);
    if (flags.has(name)) { v[name] = true; continue; }
    const value = inline ?? argv[++i];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
    v[name] = value;
  }
  const str = (n: string) => (typeof v[n] === 'string' ? (v[n] as string) : undefined);
  const posInt = (n: string) => {
    const s = str(n);
    if (s === undefined) return undefined;
    const x = Number(s);
    if (!Number.isInteger(x) || x < 1) throw new UsageError(`--${n} must be a positive integer, got '${s}'`);
    return x;
  };
  const suiteName = str('suite');
  if (suiteName !== undefined && suiteName !== 'dev') throw new UsageError(`--suite must be dev, got '${suiteName}'`);
  if (suiteName && str('data')) throw new UsageError('--suite and --data exclude each other (the suite reads every file of --data-dir)');
  if (str('data-dir') !== undefined && !suiteName) throw new UsageError('--data-dir applies only with --suite dev');
  if (suiteName && (str('poison-set') !== undefined || str('poison-count') !== undefined)) throw new UsageError('--suite dev chooses the poison sets itself; --poison-set and --poison-count apply to a single --data run');
  const data = str('data') ?? '';
  if (!data && !suiteName) throw new UsageError('--data FILE.jsonl (or --suite dev) is required');
  const judge = str('judge') ?? 'offline';
  if (!['offline', 'openai', 'llama', 'trivial'].includes(judge)) throw new UsageError(`--judge must be offline, openai, llama or trivial, got '${judge}'`);
  const retriever = str('retriever') ?? 'embed';
  if (retriever !== 'embed' && retriever !== 'bm25') throw new UsageError(`--retriever must be embed or bm25, got '${retriever}'`);
  const k = posInt('k') ?? 5;
  if (k > 50) throw new UsageError('--k must be at most 50');
  const trust = str('trust') ?? 'anonymous';
  if (trust !== 'anonymous' && trust !== 'identified') throw new UsageError(`--trust must be anonymous or identified, got '${trust}'`);
  if (str('trust') !== undefined && v['false-flag'] !== true) throw new UsageError('--trust applies only with --false-flag');
  return {
    falseFlag: v['false-flag'] === true ? { trust } : undefined,
    suite: suiteName ? { name: 'dev', dataDir: str('data-dir') ?? '../shared/data' } : undefined,
    data, judge: judge as EvalCliOptions['judge'], k, limit: posInt('limit'), out: str('out'), retriever,
    baseline: v.baseline === true, poisonSet: str('poison-set') ?? 'given', poisonCount: posInt('poison-count'),
    cacheDir: str('cache') ?? '.eval/cache', quiet: v.quiet === true,
  };
}

function buildJudge(kind: EvalCliOptions['judge'], env: NodeJS.ProcessEnv, offlineParams?: Partial<OfflineJudgeParams>): Judge {
  switch (kind) {
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

export interface EvalCliOverrides { embedder?: Embedder; env?: NodeJS.ProcessEnv; log?: (s: string) => void; offlineParams?: Partial<OfflineJudgeParams>; offlineJudgeFit?: ReportMeta['offlineJudgeFit'] }

export interface EvalCliResult { line: Record<string, unknown>; files: string[]; out: string; summary?: JudgeSummary }

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
  const records = loadEvalRecords(file, opts.limit, (where, reason) => skipped.push(`${where}: ${reason}`));
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

  const judges = [{ name: opts.judge, judge: buildJudge(opts.judge, env, overrides.offlineParams) }];
  if (opts.baseline && opts.judge !== 'trivial') judges.push({ name: 'trivial', judge: new TrivialAnswerJudge() });
  const summaries = await runEvaluation({
    records, k: opts.k, retriever: opts.retriever, embedder, judges, trace, poisonSet: opts.poisonSet, poisonCount: opts.poisonCount, falseFlag: opts.falseFlag, consensus: config.consensus, policy: config.policy,
    onProgress: opts.quiet ? undefined : progressBar(),
  });
  await embedder?.close();

  const suffix = [opts.falseFlag ? `false-flag-${opts.falseFlag.trust}` : '', opts.poisonSet !== 'given' ? opts.poisonSet : '', opts.retriever !== 'embed' ? opts.retriever : '', opts.judge !== 'offline' ? opts.judge : ''].filter(Boolean).join('-');
  const out = resolve(opts.out ?? join('.eval', suffix ? `${name}-${suffix}` : name));
  const meta: ReportMeta = {
    data: name, file, retriever: opts.retriever, embedder: opts.retriever === 'bm25' ? 'BM25 (k1 1.2, b 0.75) via text handles' : embedder!.id, k: opts.k,
    poisonSet: opts.poisonSet, poisonCount: opts.poisonCount ?? null, trace, wallSeconds: (Date.now() - started) / 1000, startedAt: new Date(started).toISOString(),
    embeddingCache: cached ? { file: cached.file, hits: cached.hits, misses: cached.misses } : undefined,
    skippedRecords: skipped.length,
    offlineJudgeFit: opts.judge === 'offline' ? (overrides.offlineJudgeFit ?? (overrides.offlineParams ? undefined : (offlineJudgeFit as unknown as ReportMeta['offlineJudgeFit']))) : undefined,
  };
  const files = writeReport(out, meta, summaries);
  log(`report: ${join(out, 'report.md')}`);
  return { line: summaryLine(meta, summaries[0]), files, out, summary: summaries[0] };
}
