/**
 * The eval command's options, parsed from argv, and the types its runs share (eval-cli.ts runs one
 * file, suite.ts runs the development suite; both import these from here, neither from the other).
 */
import type { ReaderJudgeFit } from '@forensics/infra/judges/reader-judge.adapter';
import type { OfflineJudgeParams } from '@forensics/algorithms';
import type { Embedder } from '@forensics/core';
import { ANSWER_FORMS, type AnswerForm, type EvalRecord } from './eval-data';
import type { ReportMeta } from './report';
import type { JudgeSummary, RetrieverKind, VettedScenario } from './run-evaluation';

export const EVAL_USAGE = `usage: npm run -s eval -- --data FILE.jsonl [--judge offline|openai|llama|trivial] [--k 5] [--limit N]
   or: npm run -s eval -- --suite dev [--data-dir ../shared/data] [--judge …] [--retriever …] [--k 5] [--limit N] [--out DIR]
                          [--false-flag] [--trust anonymous|identified|reviewer]
  --suite dev     every development file of --data-dir (apps/eval/src/suite-files.ts; RevPRAG a seeded subsample) and the
                  GPT-4 / Gemini rewrites (first 5 each), one table; with the offline judge each file is traced with a judge
                  refit WITHOUT its attack family (leave-one-attack-family-out: gate, features, weights, threshold, band);
                  report.md with plots in --out (default .eval/suite-dev); with --false-flag, one false-flag run per file
                  with clean texts (its clean texts, the correct answer reported as wrong), same refit judges, one table
                  (default --out .eval/suite-dev-false-flag-<trust>); --fit-cache FILE reuses the family fits written there
                  by an earlier suite run over the same files and grid (written when absent), instead of refitting;
                  --fit-grid committed (default: the committed judge's gate and L1 strength, refit per family) | full
                  (gate and L1 strength chosen per family from a 3 × 4 grid by inner leave-one-family-out);
                  --poison-count N keeps at most N planted texts per question in every run (a sparser attack than the
                  files' five: what a report of an attack that planted one or two texts leaves served); --sample FILE traces
                  only the events listed there (record ids per file: apps/eval/samples/dev-40.json, 40 per attack family,
                  written by scripts/event-sample.ts), the fixed sample on which slow judges (a local LLM) are compared
         [--out DIR] [--retriever embed|bm25] [--baseline] [--poison-set given|gpt4|gemini|gemini_100|mixed] [--poison-count N]
         [--cache DIR] [--quiet] [--false-flag] [--trust anonymous|identified|reviewer] [--vetted none|clean|all] [--vetted-share F]
         [--answer-form given|framed|sentence]
  --data          JSONL records (e.g. ../shared/data/poisonedrag_nq.jsonl); the data is read in place, never copied
  --judge         reader (rules + all-MiniLM-L6-v2, no LLM) | offline (the rules alone) | openai (OPENAI_API_KEY, OPENAI_BASE_URL, JUDGE_MODEL)
                  | llama (an OpenAI-compatible llama.cpp server: LLAMA_BASE_URL, default http://127.0.0.1:8080/v1; LLAMA_MODEL)
                  | trivial ("the text contains the wrong answer")
  --retriever     embed (default: the configured embedder, EMBEDDER / ONNX_MODEL_DIR, USE-lite by default, with a
                  disk cache by sha256 of the text) | bm25 (Okapi BM25 over the question's words)
  --baseline      also measure the trivial judge in the same run, and quote the paper's Table 1 rows
  --poison-set    the record's poisoned_texts (given), one of its poisoned_variants, or mixed (given and every variant
                  in turn: one attack written by several generators); --poison-count keeps the first N
  --false-flag    the report names the record's CORRECT answer as wrong, over its clean texts only (no poisons);
                  counts benign texts judged / auto-quarantined and suspected false flags ("falseFlag" in the line)
  --trust         reporter trust: of --false-flag reports, anonymous (default, what a feedback token gets) | identified;
                  of attack reports (without --false-flag), identified (default, a key naming its user) | anonymous | reviewer.
                  The trust SETTINGS (AUTO_QUARANTINE_MIN_TRUST, TRUST_HELD_SERVING, CORROBORATION_MIN_REPORTERS, caps)
                  come from the environment, like CONSENSUS_* and DECISION_POLICY
  --vetted        the collection's vetted baseline (decision 0320): none (default: no baseline) | clean (the clean texts
                  are ingested, the cutoff set, then the planted texts: an attack after the corpus was vetted) | all
                  (every text, planted ones included, before the cutoff: poison already inside the vetted corpus)
  --vetted-share  with --vetted clean: the share of each question's clean texts registered before the cutoff (default 1;
                  the others arrive after it, with the planted texts: a corpus that kept growing after it was vetted).
                  Which ones is fixed by a hash of the text
  --answer-form   how the feedback reports the wrong answer: given (default: the file's answer, a span) | framed (as an
                  assistant serves it: "Based on the provided context, X." and three other framings, one per question by
                  a hash) | sentence (the first prose sentence stating it in the served top K, in rank order: an extractive answer). A RAG app
                  reports the answer it served, whole (the widget and the SDK examples do)
  --out           report folder (default .eval/<data-name>[-<poison-set>][-<retriever>][-<judge>] for non-defaults)
CONSENSUS_CHECK=off measures without the consensus check; DECISION_POLICY=corroborated measures that policy. Trace bounds come from TRACE_MAX_ROUNDS / TRACE_MAX_JUDGE_CALLS / JUDGE_CONCURRENCY (defaults 10 / 50 / 4).`;

export class UsageError extends Error {}

export interface EvalCliOptions {
  data: string;
  judge: 'offline' | 'reader' | 'openai' | 'llama' | 'trivial';
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
  /** `--trust` without `--false-flag`: the attack reports' reporter trust (default identified). */
  attackTrust?: 'anonymous' | 'identified' | 'reviewer';
  /** `--vetted`: the collection's vetted baseline in each question's run (run-evaluation.ts); default none. */
  vetted: VettedScenario;
  /** `--vetted-share`: with `vetted: 'clean'`, the share of the clean texts inside the baseline (default 1). */
  vettedShare?: number;
  /** `--answer-form`: how the feedback reports the wrong answer (eval-data.ts `reportedAnswer`); default given. */
  answerForm: AnswerForm;
  /** `--suite dev`: run every development file (see suite.ts); `data` is then unused. */
  suite?: { name: 'dev'; dataDir: string; fitCache?: string; fitGrid: 'committed' | 'full'; poisonCount?: number; sample?: string };
}

export function parseEvalArgs(argv: readonly string[]): EvalCliOptions {
  const flags = new Set(['baseline', 'quiet', 'false-flag']);
  const known = new Set(['data', 'suite', 'data-dir', 'sample', 'fit-cache', 'fit-grid', 'judge', 'k', 'limit', 'out', 'retriever', 'poison-set', 'poison-count', 'cache', 'trust', 'vetted', 'vetted-share', 'answer-form', ...flags]);
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
  if (str('fit-cache') !== undefined && !suiteName) throw new UsageError('--fit-cache applies only with --suite dev');
  if (str('sample') !== undefined && !suiteName) throw new UsageError('--sample applies only with --suite dev');
  if (str('fit-grid') !== undefined && !suiteName) throw new UsageError('--fit-grid applies only with --suite dev');
  const fitGrid = str('fit-grid') ?? 'committed';
  if (fitGrid !== 'committed' && fitGrid !== 'full') throw new UsageError(`--fit-grid must be committed or full, got '${fitGrid}'`);
  if (suiteName && str('poison-set') !== undefined) throw new UsageError('--suite dev chooses the poison sets itself; --poison-set applies to a single --data run (with --suite, --poison-count N keeps at most N planted texts per question in every run)');
  if (suiteName && v['false-flag'] === true && str('poison-count') !== undefined) throw new UsageError('--poison-count does not apply to --false-flag (a false-flag run plants nothing)');
  const data = str('data') ?? '';
  if (!data && !suiteName) throw new UsageError('--data FILE.jsonl (or --suite dev) is required');
  const judge = str('judge') ?? 'offline';
  if (!['offline', 'reader', 'openai', 'llama', 'trivial'].includes(judge)) throw new UsageError(`--judge must be reader, offline, openai, llama or trivial, got '${judge}'`);
  const retriever = str('retriever') ?? 'embed';
  if (retriever !== 'embed' && retriever !== 'bm25') throw new UsageError(`--retriever must be embed or bm25, got '${retriever}'`);
  const k = posInt('k') ?? 5;
  if (k > 50) throw new UsageError('--k must be at most 50');
  const vetted = str('vetted') ?? 'none';
  if (vetted !== 'none' && vetted !== 'clean' && vetted !== 'all') throw new UsageError(`--vetted must be none, clean or all, got '${vetted}'`);
  const shareArg = str('vetted-share');
  const vettedShare = shareArg === undefined ? undefined : Number(shareArg);
  if (vettedShare !== undefined && vetted !== 'clean') throw new UsageError('--vetted-share applies only with --vetted clean');
  if (vettedShare !== undefined && !(vettedShare > 0 && vettedShare <= 1)) throw new UsageError(`--vetted-share must be a number in (0, 1], got '${shareArg}'`);
  const answerForm = str('answer-form') ?? 'given';
  if (!(ANSWER_FORMS as readonly string[]).includes(answerForm)) throw new UsageError(`--answer-form must be ${ANSWER_FORMS.join(', ')}, got '${answerForm}'`);
  const trust = str('trust') ?? (v['false-flag'] === true ? 'anonymous' : 'identified');
  if (v['false-flag'] === true && trust !== 'anonymous' && trust !== 'identified') throw new UsageError(`--trust with --false-flag must be anonymous or identified, got '${trust}'`);
  if (trust !== 'anonymous' && trust !== 'identified' && trust !== 'reviewer') throw new UsageError(`--trust must be anonymous, identified or reviewer, got '${trust}'`);
  return {
    falseFlag: v['false-flag'] === true ? { trust: trust as 'anonymous' | 'identified' } : undefined,
    ...(v['false-flag'] !== true && str('trust') !== undefined ? { attackTrust: trust } : {}),
    suite: suiteName ? { name: 'dev', dataDir: str('data-dir') ?? '../shared/data', fitGrid, ...(str('fit-cache') ? { fitCache: str('fit-cache') } : {}), ...(str('poison-count') !== undefined ? { poisonCount: posInt('poison-count') } : {}), ...(str('sample') ? { sample: str('sample') } : {}) } : undefined,
    data, judge: judge as EvalCliOptions['judge'], k, limit: posInt('limit'), out: str('out'), retriever,
    baseline: v.baseline === true, poisonSet: str('poison-set') ?? 'given', poisonCount: posInt('poison-count'),
    cacheDir: str('cache') ?? '.eval/cache', quiet: v.quiet === true, answerForm: answerForm as AnswerForm, vetted: vetted as VettedScenario, ...(vettedShare !== undefined && vettedShare < 1 ? { vettedShare } : {}),
  };
}

export interface EvalCliOverrides {
  embedder?: Embedder; env?: NodeJS.ProcessEnv; log?: (s: string) => void; offlineParams?: Partial<OfflineJudgeParams>; offlineJudgeFit?: ReportMeta['offlineJudgeFit'];
  /** `--judge reader`: a fit to use instead of the committed one (the suite's family refits). */
  readerFit?: ReaderJudgeFit;
  /** The records to run instead of reading --data (the suite's seeded subsamples); --data still names the run. */
  records?: EvalRecord[];
}

export interface EvalCliResult { line: Record<string, unknown>; files: string[]; out: string; summary?: JudgeSummary }

