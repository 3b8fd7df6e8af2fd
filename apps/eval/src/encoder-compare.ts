/**
 * Retrievers side by side (issue 58): how the attacks land under each encoder before any report.
 * `npx tsx apps/eval/src/encoder-compare.ts [--limit N] [--cache DIR] [--embedders use-lite,minilm]`
 * Per development file, the first N questions, each with its own knowledge base (its clean and planted texts, as the
 * suite builds it): the planted texts in the question's top 5 by cosine. Prints one JSON line per file and encoder, and
 * one of totals per encoder: `hit5` = share of questions with a planted text in the top 5, `planted5` = mean planted
 * texts in the top 5, `seconds` = wall time (embedding dominates; a cache makes reruns fast).
 */
import { join } from 'node:path';
import type { Embedder } from '@forensics/core';
import { loadConfig } from '@forensics/infra/config/app-config';
import { createEmbedder } from '@forensics/infra/embedders/embedder.factory';
import { CachedEmbedder } from './cached-embedder.adapter';
import { loadEvalRecords } from './eval-data';
import { SUITE_FILES } from './suite-files';

const args = process.argv.slice(2);
const opt = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const LIMIT = Number(opt('--limit') ?? 30);
const CACHE = opt('--cache') ?? '.eval/embed-cache';
const KINDS = (opt('--embedders') ?? 'use-lite,minilm').split(',') as ('use-lite' | 'minilm')[];
const DATA = join(__dirname, '..', '..', '..', '..', 'shared', 'data');
const K = 5;

const dot = (a: Float32Array, b: Float32Array) => { let s = 0; for (let i = 0; i < a.length; i++) s += a[i] * b[i]; return s; };

async function main() {
  for (const kind of KINDS) {
    const config = loadConfig({ ...process.env, EMBEDDER: kind });
    const embedder: Embedder = CachedEmbedder.inDir(createEmbedder({ kind, onnxModelDir: config.embedder.onnxModelDir }), CACHE);
    await embedder.init();
    const t0 = Date.now();
    let questions = 0, hit = 0, planted = 0;
    for (const { file } of SUITE_FILES) {
      const records = loadEvalRecords(join(DATA, `${file}.jsonl`), LIMIT).filter((r) => r.incorrect_answer && r.clean_texts.length);
      let fq = 0, fh = 0, fp = 0;
      for (const r of records) {
        const texts = [...r.poisoned_texts, ...r.clean_texts];
        const [q, ...vs] = await embedder.embed([r.question, ...texts]);
        const top = vs.map((v, i) => ({ i, s: dot(q, v) })).sort((a, b) => b.s - a.s).slice(0, K);
        const p = top.filter((t) => t.i < r.poisoned_texts.length).length;
        fq++; fp += p; if (p) fh++;
      }
      if (!fq) continue;
      questions += fq; hit += fh; planted += fp;
      console.log(JSON.stringify({ part: 'file', embedder: embedder.id, file, questions: fq, hit5: +(fh / fq).toFixed(3), planted5: +(fp / fq).toFixed(2) }));
    }
    console.log(JSON.stringify({ part: 'totals', embedder: embedder.id, limit: LIMIT, questions, hit5: +(hit / questions).toFixed(4), planted5: +(planted / questions).toFixed(3), seconds: Math.round((Date.now() - t0) / 1000) }));
    await embedder.close();
  }
}

if (require.main === module) main().catch((e) => { console.error(e); process.exit(1); });
