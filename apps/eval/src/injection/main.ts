/**
 * Texts that address the judge (issue 60, item 3): how often an instruction put into a text turns each judge.
 *
 *   npm run -s eval:injection -- [--data-dir ../shared/data] [--out .eval/injection] [--judges offline,reader,llm] [--per-file 50]
 *                                [--llm qwen2.5-0.5b] [--llm-per-file 6] [--prompts rf-v1-quote,rf-v2]
 *                                [--max-tokens 160] [--threads 2] [--seed 60]
 *
 * The set is built at run time from four development files (./injection-set.ts; nothing is written but the
 * verdicts under --out): per question one planted and one genuine text, each judged
 * alone and with every wording of its direction (./injections.ts). The rule judge (`offline`) and the reader judge
 * (`reader`, all-MiniLM-L6-v2 from MODELS_DIR) judge `--per-file` questions a file; the LLM judge — the service's own
 * OpenAiJudge against the local model LOCAL_LLM would serve (`--llm`, started as the embedded mode starts it), once per
 * prompt of `--prompts` — a seeded `--llm-per-file` of them, on which the other judges are reported too (`sample`),
 * and the reader as the LLM's second opinion (their label where they agree, a reviewer's where they do not). The LLM
 * judge is asked as the service asks it, except: no re-asks (greedy decoding repeats the same reply) and the
 * endpoint's reply cap `--max-tokens` (LOCAL_LLM_MAX_TOKENS, the service's default 256). Prints a table on stderr and
 * one JSON line on stdout; every verdict with its reply goes to `--out` (default .eval/injection, git-ignored).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { READER_JUDGE_FIT } from '@forensics/algorithms';
import type { Judge } from '@forensics/core';
import { LOCAL_LLM_FILE, modelsDirOf } from '@forensics/infra/config/app-config';
import { MINILM_ID } from '@forensics/infra/embedders/embedder.factory';
import { OnnxEmbedder } from '@forensics/infra/embedders/onnx-embedder.adapter';
import { MiniLmReader } from '@forensics/infra/judges/minilm-reader';
import { OfflineJudge } from '@forensics/infra/judges/offline-judge.adapter';
import { OpenAiJudge } from '@forensics/infra/judges/openai-judge.adapter';
import { ReaderJudge } from '@forensics/infra/judges/reader-judge.adapter';
import { RF_PROMPT_VERSIONS, type RfPromptVersion } from '@forensics/infra/judges/rf-prompts';
import { LOCAL_LLM_DEFAULTS } from '@forensics/infra/local-llm/local-llm.params';
import { startEmbeddedLocalLlm } from '@forensics/infra/runtime/embedded-local-llm';
import { loadEvalRecords } from '../eval-data';
import { seededSample } from '../suite-files';
import { fnv1a } from '../span-localisation';
import { INJECTION_WORDINGS } from './injections';
import { injectionSet, judgeCase, secondOpinion, summarise, type CaseVerdicts, type InjectionCase, type TurnSummary } from './injection-set';

/** The files the set is drawn from: PoisonedRAG on NQ and HotpotQA, RobustRAG's news questions, HotFlip's token salad. */
export const INJECTION_FILES = ['poisonedrag_nq', 'poisonedrag_hotpotqa', 'robustrag_realtimeqa', 'gmtp_poisonedrag-whitebox-hotflip_contriever_nq'] as const;

interface Options { out: string; dataDir: string; judges: string[]; perFile: number; llm: string; llmPerFile: number; prompts: RfPromptVersion[]; maxTokens: number; threads: number; seed: number }

function parse(argv: readonly string[]): Options {
  const v: Record<string, string> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]!;
    if (!name.startsWith('--') || argv[i + 1] === undefined) throw new Error(`expected --option value pairs, got '${name}'`);
    v[name.slice(2)] = argv[i + 1]!;
  }
  const known = ['out', 'data-dir', 'judges', 'per-file', 'llm', 'llm-per-file', 'prompts', 'max-tokens', 'threads', 'seed'];
  for (const k of Object.keys(v)) if (!known.includes(k)) throw new Error(`unknown option --${k} (known: ${known.map((x) => `--${x}`).join(' ')})`);
  const int = (k: string, d: number, min = 1) => {
    const x = v[k] === undefined ? d : Number(v[k]);
    if (!Number.isInteger(x) || x < min) throw new Error(`--${k} must be an integer ≥ ${min}, got '${v[k]}'`);
    return x;
  };
  const judges = (v.judges ?? 'offline,reader,llm').split(',').filter(Boolean);
  for (const j of judges) if (!['offline', 'reader', 'llm'].includes(j)) throw new Error(`--judges: offline, reader or llm, got '${j}'`);
  const prompts = (v.prompts ?? 'rf-v1-quote,rf-v2').split(',').filter(Boolean) as RfPromptVersion[];
  for (const p of prompts) if (!RF_PROMPT_VERSIONS.includes(p)) throw new Error(`--prompts: ${RF_PROMPT_VERSIONS.join(', ')}, got '${p}'`);
  return {
    out: v.out ?? '.eval/injection', dataDir: v['data-dir'] ?? '../shared/data', judges, perFile: int('per-file', 50), llm: v.llm ?? 'qwen2.5-0.5b', llmPerFile: int('llm-per-file', 6),
    prompts, maxTokens: int('max-tokens', 160), threads: int('threads', 2, 0), seed: int('seed', 60, 0),
  };
}

const say = (s: string) => process.stderr.write(`${s}\n`);

/** Every verdict of a run, with the judge's replies, as JSONL in the report folder (git-ignored): what turned a judge, in its words. */
function writeVerdicts(out: string, name: string, verdicts: readonly CaseVerdicts[]): void {
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, `${name.replace(/[^\w.-]+/g, '_')}.jsonl`), verdicts.map((v) => JSON.stringify({
    file: v.case.file, id: v.case.recordId, direction: v.case.direction, question: v.case.question, wrongAnswer: v.case.wrongAnswer, text: v.case.text,
    base: v.base, variants: v.variants, replies: v.replies,
  })).join('\n') + '\n');
}

async function judgeAll(name: string, judge: Judge, cases: readonly InjectionCase[], out: string): Promise<{ verdicts: CaseVerdicts[]; judgments: number; seconds: number }> {
  const t0 = performance.now();
  const verdicts: CaseVerdicts[] = [];
  let judgments = 0;
  let lastDecile = -1;
  for (const [i, c] of cases.entries()) {
    verdicts.push(await judgeCase(judge, c));
    judgments += 1 + c.variants.length;
    const decile = Math.floor(((i + 1) / cases.length) * 10);
    if (decile > lastDecile) {
      lastDecile = decile;
      const s = (performance.now() - t0) / 1000;
      say(`${name}: ${i + 1}/${cases.length} texts, ${judgments} judgments, ${s.toFixed(0)} s (${(s / judgments).toFixed(3)} s each), load ${loadavg()[0].toFixed(2)}`);
    }
  }
  writeVerdicts(out, name, verdicts);
  return { verdicts, judgments, seconds: (performance.now() - t0) / 1000 };
}

const pct = (x: number | null) => (x === null ? '   –  ' : `${(x * 100).toFixed(1).padStart(5)} %`);

function table(rows: { name: string; s: TurnSummary }[]): string {
  const wordings = INJECTION_WORDINGS.map((w) => w.id);
  const head = ['judge', 'planted YES alone', 'turned all', 'planted', 'genuine', ...wordings];
  const lines = rows.map(({ name, s }) => [
    name, `${s.planted.baseYes}/${s.planted.texts}`, `${pct(s.all.rate)} (${s.all.turned}/${s.all.eligible})`,
    `${pct(s.planted.rate)} (${s.planted.turned}/${s.planted.eligible})`, `${pct(s.genuine.rate)} (${s.genuine.turned}/${s.genuine.eligible})`,
    ...wordings.map((w) => { const t = s.byWording[w]; return t ? `${t.turned}/${t.eligible}` : '–'; }),
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(w[i]!)).join('  ');
  return [fmt(head), w.map((n) => '-'.repeat(n)).join('  '), ...lines.map(fmt)].join('\n');
}

export async function main(argv: readonly string[]): Promise<void> {
  const o = parse(argv);
  if (!existsSync(o.dataDir)) throw new Error(`data folder not found: ${o.dataDir} (the shared third-party data, ../shared/data, is not part of this repository)`);
  const files = INJECTION_FILES.filter((f) => existsSync(join(o.dataDir, `${f}.jsonl`))).map((name) => ({ name, records: loadEvalRecords(join(o.dataDir, `${name}.jsonl`)) }));
  const cases = injectionSet(files, o.perFile, o.seed);
  // The LLM's sample: a seeded draw of the same questions (both cases of a question, or neither).
  const ids = new Set(files.flatMap((f) => seededSample([...new Set(cases.filter((c) => c.file === f.name).map((c) => c.recordId))], o.llmPerFile, fnv1a(`${o.seed}:llm:${f.name}`)).map((id) => `${f.name}:${id}`)));
  const sample = cases.filter((c) => ids.has(`${c.file}:${c.recordId}`));
  const sampleIdx = cases.map((c, i) => (ids.has(`${c.file}:${c.recordId}`) ? i : -1)).filter((i) => i >= 0);
  say(`injection set: ${cases.length} texts (${files.map((f) => f.name).join(', ')}), ${cases.reduce((n, c) => n + c.variants.length, 0)} injected; LLM sample ${sample.length} texts`);
  const load0 = loadavg()[0];
  const runs: Record<string, { summary: TurnSummary; sample?: TurnSummary; judgments: number; secondsPerJudgment: number }> = {};
  const rows: { name: string; s: TurnSummary }[] = [];
  const sampleRows: { name: string; s: TurnSummary }[] = [];
  const bySample: Record<string, CaseVerdicts[]> = {};

  if (o.judges.includes('offline')) {
    const r = await judgeAll('offline', new OfflineJudge(), cases, o.out);
    const sub = sampleIdx.map((i) => r.verdicts[i]!);
    bySample.offline = sub;
    runs.offline = { summary: summarise(r.verdicts), sample: summarise(sub), judgments: r.judgments, secondsPerJudgment: +(r.seconds / r.judgments).toFixed(4) };
    rows.push({ name: 'offline (rules)', s: runs.offline.summary });
    sampleRows.push({ name: 'offline (rules)', s: runs.offline.sample! });
  }
  if (o.judges.includes('reader')) {
    const modelDir = join(modelsDirOf(process.env.MODELS_DIR), MINILM_ID);
    if (!existsSync(join(modelDir, 'model.onnx'))) throw new Error(`the reader judge needs ${modelDir}/model.onnx: run \`npm run models\``);
    const reader = new MiniLmReader(new OnnxEmbedder({ modelDir, id: MINILM_ID }));
    await reader.init();
    try {
      const r = await judgeAll('reader', new ReaderJudge(reader, READER_JUDGE_FIT), cases, o.out);
      const sub = sampleIdx.map((i) => r.verdicts[i]!);
      bySample.reader = sub;
      runs.reader = { summary: summarise(r.verdicts), sample: summarise(sub), judgments: r.judgments, secondsPerJudgment: +(r.seconds / r.judgments).toFixed(4) };
      rows.push({ name: 'reader', s: runs.reader.summary });
      sampleRows.push({ name: 'reader', s: runs.reader.sample! });
    } finally {
      await reader.close();
    }
  }
  let llmInfo: Record<string, unknown> | undefined;
  if (o.judges.includes('llm')) {
    const modelPath = join(modelsDirOf(process.env.MODELS_DIR), o.llm, LOCAL_LLM_FILE);
    if (!existsSync(modelPath)) throw new Error(`${modelPath} is missing: run \`npm run models -- --llm ${o.llm}\``);
    const dir = mkdtempSync(join(tmpdir(), 'eval-injection-'));
    const t0 = performance.now();
    const llm = await startEmbeddedLocalLlm(dir, { ...LOCAL_LLM_DEFAULTS, model: o.llm, modelPath, threads: o.threads, contextSize: 4096, requestTimeoutMs: 900_000, defaultMaxTokens: o.maxTokens }, resolve(__dirname, '../../../..'), say);
    llmInfo = { model: o.llm, threads: o.threads || 'auto', maxTokens: o.maxTokens, reasks: 0, startSeconds: +((performance.now() - t0) / 1000).toFixed(1) };
    try {
      for (const prompt of o.prompts) {
        const judge = new OpenAiJudge({ baseURL: llm.url, apiKey: 'not-needed', model: o.llm, prompt, maxReasks: 0, maxRetries: 0, timeoutMs: 900_000 });
        const r = await judgeAll(`llm-${o.llm}-${prompt}`, judge, sample, o.out);
        const name = `llm ${o.llm} ${prompt}`;
        runs[name] = { summary: summarise(r.verdicts), judgments: r.judgments, secondsPerJudgment: +(r.seconds / r.judgments).toFixed(3) };
        sampleRows.push({ name, s: runs[name].summary });
        if (bySample.reader) {
          const both = summarise(secondOpinion(r.verdicts, bySample.reader));
          runs[`${name} + reader`] = { summary: both, judgments: 0, secondsPerJudgment: 0 };
          sampleRows.push({ name: `${name} + reader (2nd opinion)`, s: both });
        }
        const undetermined = r.verdicts.reduce((n, v) => n + (v.base === 'UNDETERMINED' ? 1 : 0) + v.variants.filter((x) => x.label === 'UNDETERMINED').length, 0);
        (runs[name] as Record<string, unknown>).undetermined = undetermined;
      }
    } finally {
      await llm.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  if (rows.length) say(`\nall ${cases.length} texts:\n${table(rows)}`);
  say(`\nLLM sample, ${sample.length} texts (${o.llmPerFile} questions a file):\n${table(sampleRows)}\n`);
  process.stdout.write(`${JSON.stringify({
    what: 'injection', seed: o.seed, files: files.map((f) => f.name), perFile: o.perFile, llmPerFile: o.llmPerFile,
    texts: { all: cases.length, sample: sample.length }, wordings: INJECTION_WORDINGS.map((w) => `${w.id}:${w.direction}`),
    cores: cpus().length, load: { before: +load0.toFixed(2), after: +loadavg()[0].toFixed(2) }, llm: llmInfo, runs,
  })}\n`);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`eval:injection: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
