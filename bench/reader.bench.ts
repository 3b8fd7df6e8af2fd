/**
 * The reader judge per judged text (issue 59): p50 / p95 of `ReaderJudge.judge` (the rules and all-MiniLM-L6-v2's
 * reading, the encoder's one session run per text) on real candidates — every clean and planted text of the first
 * questions of ../shared/data/poisonedrag_nq.jsonl that states the wrong answer (only those are read by the encoder;
 * the others are the rules alone and are timed apart). The question's own encoding is cached per event as in the
 * service, so the first text of each question pays it. Prints one JSON line with the cores and the load.
 *   npm run -s bench:reader -- [questions=40] [threads=2]
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { offlineJudgeFeatures, READER_JUDGE_FIT } from '@forensics/algorithms';
import { MINILM_ID } from '../libs/infra/src/embedders/embedder.factory';
import { OnnxEmbedder } from '../libs/infra/src/embedders/onnx-embedder.adapter';
import { modelsDirOf } from '../libs/infra/src/config/app-config';
import { MiniLmReader } from '../libs/infra/src/judges/minilm-reader';
import { ReaderJudge } from '../libs/infra/src/judges/reader-judge.adapter';

const DATA = join(__dirname, '..', '..', 'shared', 'data', 'poisonedrag_nq.jsonl');

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s.length ? +s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(2) : null; };

async function main(): Promise<void> {
  const nq = Number(process.argv[2] ?? 40);
  const threads = Number(process.argv[3] ?? 2);
  const records = readFileSync(DATA, 'utf8').split('\n').filter(Boolean).slice(0, nq).map((l) => JSON.parse(l) as { question: string; incorrect_answer: string; clean_texts: string[]; poisoned_texts: string[] });
  const reader = new MiniLmReader(new OnnxEmbedder({ modelDir: join(modelsDirOf(process.env.MODELS_DIR), MINILM_ID), id: MINILM_ID, intraOpThreads: threads }));
  const judge = new ReaderJudge(reader, READER_JUDGE_FIT);
  await reader.init();
  await judge.judge({ query: 'warm up', wrongAnswer: 'up', text: 'Warm up is up.' });
  const load0 = loadavg()[0];
  const read: number[] = [];
  const rulesOnly: number[] = [];
  for (const r of records) {
    for (const text of [...r.poisoned_texts, ...r.clean_texts]) {
      const states = offlineJudgeFeatures({ query: r.question, wrongAnswer: r.incorrect_answer, text }).support > 0;
      const t0 = performance.now();
      await judge.judge({ query: r.question, wrongAnswer: r.incorrect_answer, text });
      (states ? read : rulesOnly).push(performance.now() - t0);
    }
  }
  await reader.close();
  console.log(JSON.stringify({
    bench: 'reader', judge: judge.model, encoder: MINILM_ID, questions: records.length, threads, cores: cpus().length, load1: +load0.toFixed(2), loadAfter: +loadavg()[0].toFixed(2),
    statingAnswer: { texts: read.length, p50Ms: pct(read, 0.5), p95Ms: pct(read, 0.95) },
    rulesOnly: { texts: rulesOnly.length, p50Ms: pct(rulesOnly, 0.5) },
    allJudged: { texts: read.length + rulesOnly.length, p50Ms: pct([...read, ...rulesOnly], 0.5) },
    targets: { p50MsPerJudgedText: 25 },
  }));
}

main().catch((err) => { console.error(err); process.exit(1); });
