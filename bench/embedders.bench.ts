/**
 * Embedding throughput at batch 32: USE-lite (TF.js WASM) and a random-weight ONNX BERT of
 * all-MiniLM-L6-v2's shape (onnxruntime-node CPU). Prints one JSON line.
 *   npx tsx bench/embedders.bench.ts [passages=256] [threads=2] [wordsPerPassage=100]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Embedder } from '@forensics/core';
import { OnnxEmbedder, UseLiteEmbedder } from '../libs/infra/src/embedders';
import { writeRandomBertOnnx } from '../test/support/random-bert-onnx';

const WORDS = (
  'the poisoned passage claims that a retrieval augmented generator answers questions about history science ' +
  'medicine and law by reading documents from a knowledge base which an attacker may have modified to inject ' +
  'false statements so that the model repeats them forensic traceback finds the responsible texts'
).split(' ');

/** Deterministic passages of `words` words (100 words ≈ 115 WordPiece tokens, a typical RAG chunk). */
function passages(n: number, words: number): string[] {
  let s = 12345;
  const next = (): number => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: n }, (_, i) => `Passage ${i}. ` + Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ') + '.');
}

async function throughput(e: Embedder, texts: string[]): Promise<{ passagesPerSec: number; initMs: number }> {
  const t0 = performance.now();
  await e.init();
  const initMs = performance.now() - t0;
  await e.embed(texts.slice(0, 32)); // warm-up
  const t1 = performance.now();
  await e.embed(texts);
  const secs = (performance.now() - t1) / 1000;
  return { passagesPerSec: Math.round((texts.length / secs) * 10) / 10, initMs: Math.round(initMs) };
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 256);
  const threads = Number(process.argv[3] ?? 2);
  const words = Number(process.argv[4] ?? 100);
  const texts = passages(n, words);

  const use = new UseLiteEmbedder({ batchSize: 32 });
  const useLite = await throughput(use, texts);
  await use.close();

  const dir = await mkdtemp(join(tmpdir(), 'bench-minilm-'));
  try {
    await writeRandomBertOnnx(dir, { seed: 1 });
    const onnx = new OnnxEmbedder({ modelDir: dir, batchSize: 32, intraOpThreads: threads });
    const onnxMiniLm = await throughput(onnx, texts);
    const tokens = (await onnx.forward(texts.slice(0, 32))).seqLength;
    await onnx.close();
    console.log(JSON.stringify({ bench: 'embedders', passages: n, wordsPerPassage: words, batchSize: 32, threads, paddedSeqLen: tokens, useLite, onnxMiniLmShape: onnxMiniLm }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
