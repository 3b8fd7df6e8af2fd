/**
 * The trained encoder against USE-lite on real passages (issue 58): passages/s at batch 32 and the p50 / p95 of one
 * query, on the machine as it is (cores and load in the line). Passages: the first clean texts of
 * ../shared/data/poisonedrag_nq.jsonl; queries: its questions. Prints one JSON line.
 *   npm run -s bench:encoder -- [passages=512] [queries=100] [threads=2] [run=the embedder's default]
 * Passages are handed over 32 per `embed` call; `run` is how many rows one onnxruntime session run holds (MiniLM's
 * default: 1, see embedder.factory.ts).
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { Embedder } from '@forensics/core';
import { loadConfig } from '../libs/infra/src/config/app-config';
import { createEmbedder } from '../libs/infra/src/embedders';

const DATA = join(__dirname, '..', '..', 'shared', 'data', 'poisonedrag_nq.jsonl');

async function measure(e: Embedder, passages: string[], queries: string[]) {
  const t0 = performance.now();
  await e.init();
  const initMs = Math.round(performance.now() - t0);
  await e.embed(passages.slice(0, 32)); // warm-up
  const t1 = performance.now();
  for (let i = 0; i < passages.length; i += 32) await e.embed(passages.slice(i, i + 32));
  const passagesPerSec = +(passages.length / ((performance.now() - t1) / 1000)).toFixed(1);
  const lat: number[] = [];
  for (const q of queries) {
    const s = performance.now();
    await e.embed([q]);
    lat.push(performance.now() - s);
  }
  lat.sort((a, b) => a - b);
  const q = (p: number) => +lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(2);
  return { id: e.id, initMs, passagesPerSec, queryP50Ms: q(0.5), queryP95Ms: q(0.95) };
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 512);
  const nq = Number(process.argv[3] ?? 100);
  const threads = Number(process.argv[4] ?? 2);
  const rowsPerRun = process.argv[5] === undefined ? undefined : Number(process.argv[5]);
  const records = readFileSync(DATA, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { question: string; clean_texts: string[] });
  const passages = records.flatMap((r) => r.clean_texts).slice(0, n);
  const queries = records.map((r) => r.question).slice(0, nq);
  const words = Math.round(passages.reduce((s, p) => s + p.split(/\s+/).length, 0) / passages.length);
  const config = loadConfig({ ...process.env, EMBEDDER: 'minilm' });
  const minilm = createEmbedder({ kind: 'minilm', onnxModelDir: config.embedder.onnxModelDir, onnxThreads: threads, rowsPerRun });
  const load0 = loadavg()[0];
  const trained = await measure(minilm, passages, queries);
  await minilm.close();
  const use = createEmbedder({ kind: 'use-lite', batchSize: 32 });
  const useLite = await measure(use, passages, queries);
  await use.close();
  console.log(JSON.stringify({
    bench: 'encoder', passages: passages.length, meanWords: words, queries: queries.length, batchSize: 32, rowsPerRun: rowsPerRun ?? 'default', threads,
    cores: cpus().length, load1: +load0.toFixed(2), loadAfter: +loadavg()[0].toFixed(2), minilm: trained, useLite,
    targets: { passagesPerSec: 150, queryP50Ms: 10 },
  }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
