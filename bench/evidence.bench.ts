/**
 * Evidence cost per feedback event (the BiRD, GRADA and ProGRank evidence of libs/forensics): BiRD
 * + GRADA on the embedded vector store, and ProGRank probe gradients on a random-weight ONNX
 * encoder of all-MiniLM-L6-v2's shape.
 *
 *   npm run bench:evidence            (= tsx bench/evidence.bench.ts)
 *   env: EVIDENCE_EVENTS (BiRD/GRADA events, default 30), PROGRANK_EVENTS (default 5),
 *        PROGRANK_FULL_POOL=0 to skip the "probe all 20" reference, PROBE_THREADS (default: cores),
 *        PROBE_MAX_TOKENS_PER_RUN (default 16384), PROBE_MAX_LENGTH (default 256)
 *
 * Prints ONE JSON line. Targets: BiRD+GRADA ≤ 20 ms/event; ProGRank ≤ 2 s/event on 2 cores.
 *
 * BiRD + GRADA (per event): the event's 20-candidate pool (ids, as the traceback stored them) →
 * fetch their vectors and texts (1 call) → ONE `searchBatch` of k+1 = 21 searches (the forward
 * ranking for q and the 20 backward rankings R_bw^i = top-k(d_i, D \ {d_i})) → `birdScores` →
 * `gradaRerank` over the top M = 2n = 10 with n = 5 (HRSIM over BM25, the default) on synthetic texts.
 *
 * ProGRank (per event, ProGRank, arXiv 2603.22934, §3.5): a bounded 20-passage pool of 60–100-word
 * synthetic passages. (1) base scores s(q,p) of the pool with the probe encoder (one forward pass
 * over query + 20 passages); (2) gate on the pool and probe only the decision-critical upper tail
 * (`selectProbeSet`) with R = 20 token-dropout runs (rate 0.10); (3) `progrankScores`.
 * `progrankOverForwardRatio` = ProGRank seconds / one plain forward pass over the same 20 texts.
 * Also reported: the white-box variant (the retriever is the probe encoder, so the pool's retrieval
 * scores serve as s(q,p) and step 1 disappears), the process CPU seconds per event (robust to other
 * load on the machine) and the 1-minute load average, since wall times on a shared box are not.
 */
import { mulberry32 } from '@forensics/algorithms';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SearchRequest, VectorRecord } from '../libs/core/src/ports/vector-store.port';
import { birdScores } from '../libs/forensics/src/bird';
import { gradaRerank } from '../libs/forensics/src/grada';
import { progrankScores, selectProbeSet } from '../libs/forensics/src/progrank';
import { OnnxEmbedder } from '../libs/infra/src/embedders/onnx-embedder.adapter';
import { MINILM_L6_SHAPE, writeRandomBertOnnx } from '../test/support/random-bert-onnx';
import { OnnxGradientProbe } from '../libs/infra/src/probe/onnx-gradient-probe';
import { LanceDbVectorStore } from '../libs/infra/src/vector-store/lancedb-vector-store.adapter';

const N = 10_000;
const DIM = 384;
const POOL = 20;
const BIRD_K = 20;
const GRADA_N = 5;
const GRADA_M = 2 * GRADA_N;
const RUNS = 20;
const TOKEN_DROPOUT = 0.1;
const EVENTS = Number(process.env.EVIDENCE_EVENTS ?? 30);
const WARMUP = 5;
const PROGRANK_EVENTS = Number(process.env.PROGRANK_EVENTS ?? 5);
const FULL_POOL_REFERENCE = process.env.PROGRANK_FULL_POOL !== '0';
const CORES = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
const THREADS = Number(process.env.PROBE_THREADS ?? CORES);
const MAX_TOKENS_PER_RUN = Number(process.env.PROBE_MAX_TOKENS_PER_RUN ?? 16384);
const MAX_LENGTH = Number(process.env.PROBE_MAX_LENGTH ?? 256);

const mulberry = mulberry32;

const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
const round = (x: number, d = 3): number => Number(x.toFixed(d));

// --- synthetic text -------------------------------------------------------------------------
const SUBJECTS = ['the committee', 'a local historian', 'the river authority', 'the research team', 'an early settler', 'the national archive', 'the city council', 'a regional newspaper', 'the museum curator', 'the engineering firm', 'the university library', 'a travelling merchant'];
const VERBS = ['recorded', 'described', 'rebuilt', 'examined', 'published', 'funded', 'surveyed', 'restored', 'catalogued', 'questioned', 'announced', 'measured'];
const OBJECTS = ['the northern bridge', 'an annual harvest festival', 'the old granary', 'a series of flood reports', 'the coastal railway', 'the first public school', 'a collection of letters', 'the copper mine', 'the cathedral tower', 'a trade agreement', 'the water supply network', 'the census figures'];
const TAILS = ['in the spring of 1887', 'after a long dispute over funding', 'with the help of volunteers', 'despite repeated delays', 'for the second time in a decade', 'according to surviving records', 'before the war began', 'during an unusually dry summer', 'as part of a wider reform', 'while the harbour was closed'];
const CONNECT = ['Later,', 'In contrast,', 'Meanwhile,', 'As a result,', 'By then,', 'Some years afterwards,'];

function sentence(rand: () => number, first: boolean): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const s = `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)} ${pick(TAILS)}.`;
  return first ? s[0].toUpperCase() + s.slice(1) : `${pick(CONNECT)} ${s}`;
}

/** A passage of about `minWords`–`maxWords` words. */
function passage(rand: () => number, minWords: number, maxWords: number): string {
  const target = minWords + Math.floor(rand() * (maxWords - minWords + 1));
  const parts: string[] = [];
  let words = 0;
  while (words < target) {
    const s = sentence(rand, parts.length === 0);
    parts.push(s);
    words += s.split(/\s+/).length;
  }
  return parts.join(' ');
}

function randomUnit(rand: () => number, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let norm = 0;
  for (let d = 0; d < dim; d++) {
    // Sum of uniforms ≈ normal: isotropic enough for a timing benchmark.
    v[d] = rand() + rand() + rand() - 1.5;
    norm += v[d] * v[d];
  }
  const inv = 1 / Math.sqrt(norm);
  for (let d = 0; d < dim; d++) v[d] *= inv;
  return v;
}

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const out = await fn();
  return [performance.now() - t0, out];
}

// --- BiRD + GRADA -----------------------------------------------------------------------------
async function benchBirdGrada(root: string): Promise<Record<string, number>> {
  const rand = mulberry(7);
  const records: VectorRecord[] = Array.from({ length: N }, (_, i) => ({
    id: uuid(i + 1),
    vector: randomUnit(rand, DIM),
    text: passage(rand, 15, 40),
    payload: { externalId: `doc-${i}` },
  }));
  const store = new LanceDbVectorStore({ dir: path.join(root, 'lancedb') });
  try {
    await store.ensureCollection('kb', DIM);
    await store.upsert('kb', records);

    // Events: a query vector near a stored record; its pool is its top-20 (as the traceback left it).
    const events: { query: string; vector: Float32Array; pool: string[] }[] = [];
    for (let e = 0; e < WARMUP + EVENTS; e++) {
      const anchor = records[Math.floor(rand() * N)].vector as Float32Array;
      const noise = randomUnit(rand, DIM);
      const v = new Float32Array(DIM);
      let norm = 0;
      for (let d = 0; d < DIM; d++) {
        v[d] = anchor[d] + 0.6 * noise[d];
        norm += v[d] * v[d];
      }
      for (let d = 0; d < DIM; d++) v[d] /= Math.sqrt(norm);
      const hits = await store.search('kb', { vector: v, k: POOL });
      events.push({ query: sentence(rand, true), vector: v, pool: hits.map((h) => h.id) });
    }

    const perEvent: number[] = [];
    const parts = { fetch: [] as number[], searchBatch: [] as number[], bird: [] as number[], grada: [] as number[] };
    let suspicious = 0;
    for (const [e, ev] of events.entries()) {
      const t0 = performance.now();
      const stored = await store.fetch('kb', ev.pool);
      const byId = new Map(stored.map((r) => [r.id, r]));
      const pool = ev.pool.map((id) => byId.get(id)!);
      const t1 = performance.now();
      const requests: SearchRequest[] = [
        { vector: ev.vector, k: BIRD_K },
        ...pool.map((r) => ({ vector: r.vector, k: BIRD_K, excludeIds: [r.id] })),
      ];
      const [forward, ...backward] = await store.searchBatch('kb', requests);
      const t2 = performance.now();
      const bird = birdScores({
        query: { forward: forward.map((h) => ({ id: h.id, score: h.score })) },
        backward: Object.fromEntries(pool.map((r, i) => [r.id, backward[i].map((h) => h.id)])),
      });
      const t3 = performance.now();
      const scoreOf = new Map(forward.map((h) => [h.id, h.score]));
      const grada = gradaRerank(
        {
          query: ev.query,
          queryVector: ev.vector,
          candidates: forward.slice(0, GRADA_M).map((h) => ({ id: h.id, text: h.text, vector: byId.get(h.id)?.vector, score: scoreOf.get(h.id) ?? h.score })),
        },
        { n: GRADA_N },
      );
      const t4 = performance.now();
      if (grada.length !== GRADA_M) throw new Error('gradaRerank returned a partial ranking');
      if (e < WARMUP) continue;
      suspicious += bird.filter((b) => b.suspicious).length;
      perEvent.push(t4 - t0);
      parts.fetch.push(t1 - t0);
      parts.searchBatch.push(t2 - t1);
      parts.bird.push(t3 - t2);
      parts.grada.push(t4 - t3);
    }
    const sorted = [...perEvent].sort((a, b) => a - b);
    return {
      birdGradaMsPerEvent: round(mean(perEvent)),
      birdGradaP95Ms: round(sorted[Math.floor(sorted.length * 0.95)]),
      birdFetchMs: round(mean(parts.fetch)),
      birdSearchBatch21Ms: round(mean(parts.searchBatch)),
      birdMathsMs: round(mean(parts.bird)),
      gradaMs: round(mean(parts.grada)),
      birdSuspiciousPerEvent: round(suspicious / perEvent.length, 2),
      birdGradaEvents: perEvent.length,
    };
  } finally {
    await store.close();
  }
}

// --- ProGRank ---------------------------------------------------------------------------------
async function benchProgrank(root: string): Promise<Record<string, unknown>> {
  const modelDir = path.join(root, 'minilm-random');
  const [genMs] = await time(() => writeRandomBertOnnx(modelDir, { shape: MINILM_L6_SHAPE, seed: 3, exposeLastLayerNormInput: true }));
  const probeOpts = { modelDir, layerNorm: 'from-model' as const, intraOpThreads: THREADS, maxTokensPerRun: MAX_TOKENS_PER_RUN, maxLength: MAX_LENGTH };
  const probe = new OnnxGradientProbe(probeOpts);
  // White-box variant: the retriever IS the probe encoder, so the pool's retrieval scores are s(q,p)
  // and no first pass is needed; no row cache, so the probe pays for every row it uses.
  const probeWb = new OnnxGradientProbe({ ...probeOpts, cacheSize: 0 });
  const plain = new OnnxEmbedder({ modelDir, intraOpThreads: THREADS, maxLength: MAX_LENGTH, batchSize: 64 });
  try {
    await Promise.all([probe.init(), plain.init(), probeWb.init()]);
    const rand = mulberry(11);
    const events = Array.from({ length: 1 + PROGRANK_EVENTS }, () => ({
      query: sentence(rand, true).replace(/\.$/, '?'),
      pool: Array.from({ length: POOL }, () => passage(rand, 60, 100)),
    }));
    const tokens = (await plain.encode(events[1].pool)).lengths;

    const total: number[] = [];
    const cpu: number[] = [];
    const forwardCpu: number[] = [];
    const whiteBox: number[] = [];
    const firstPass: number[] = [];
    const probing: number[] = [];
    const maths: number[] = [];
    const forward: number[] = [];
    const probed: number[] = [];
    const onnxRuns: number[] = [];
    const rows: number[] = [];
    for (const [e, ev] of events.entries()) {
      const cf = process.cpuUsage();
      const [fwdMs] = await time(() => plain.embed(ev.pool)); // one plain forward pass over the 20 texts
      const fwdCpu = process.cpuUsage(cf);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      // (1) base scores of the bounded pool with the probe encoder (no perturbation: one row per text).
      const base = await probe.probe(ev.query, ev.pool, { runs: 1, seed: e, tokenDropout: 0 });
      const baseStats = probe.lastStats;
      const t1 = performance.now();
      // (2) gate on the pool, probe the decision-critical upper tail with R runs.
      const tail = selectProbeSet(base.scores, { corpusSize: POOL });
      const sig = tail.length ? await probe.probe(ev.query, tail.map((i) => ev.pool[i]), { runs: RUNS, seed: e, tokenDropout: TOKEN_DROPOUT }) : { scores: [], gradients: [] };
      const stats = probe.lastStats;
      const t2 = performance.now();
      // (3) ProGRank maths: defended scores for the pool (unprobed candidates carry no gradients).
      const gradOf = new Map(tail.map((i, k) => [i, sig.gradients[k]]));
      const scored = progrankScores({
        candidates: ev.pool.map((_, i) => ({ id: `p${i}`, score: base.scores[i], gradients: gradOf.get(i) })),
        corpusScores: base.scores,
        corpusSize: POOL,
      });
      const t3 = performance.now();
      const c = process.cpuUsage(c0);
      if (!Array.isArray(scored) || scored.length !== POOL) throw new Error('progrankScores returned an unexpected result');
      if (scored.filter((r) => r.probed).length !== tail.length) throw new Error('progrankScores: probed count mismatch');
      // White-box: gate from the retrieval scores (here: the same s(q,p)), probe the tail, maths.
      const [wbMs] = await time(async () => {
        const t = selectProbeSet(base.scores, { corpusSize: POOL });
        const g = await probeWb.probe(ev.query, t.map((i) => ev.pool[i]), { runs: RUNS, seed: e, tokenDropout: TOKEN_DROPOUT });
        const gi = new Map(t.map((i, k) => [i, g.gradients[k]]));
        return progrankScores({ candidates: ev.pool.map((_, i) => ({ id: `p${i}`, score: base.scores[i], gradients: gi.get(i) })), corpusScores: base.scores, corpusSize: POOL });
      });
      if (e === 0) continue; // warm-up
      whiteBox.push(wbMs);
      cpu.push((c.user + c.system) / 1000);
      forward.push(fwdMs);
      forwardCpu.push((fwdCpu.user + fwdCpu.system) / 1000);
      firstPass.push(t1 - t0);
      probing.push(t2 - t1);
      maths.push(t3 - t2);
      total.push(t3 - t0);
      probed.push(tail.length);
      onnxRuns.push(baseStats.runs + stats.runs);
      rows.push(baseStats.rows + stats.rows); // encoder rows actually run (first pass + tail; cache hits excluded)
    }

    let fullPool: Record<string, number> = {};
    if (FULL_POOL_REFERENCE) {
      const ev = events[1];
      // Reference: probe all 20 (no gating, no cache).
      const [ms] = await time(() => probeWb.probe(ev.query, ev.pool, { runs: RUNS, seed: 1, tokenDropout: TOKEN_DROPOUT }));
      fullPool = { progrankFullPoolProbeSeconds: round(ms / 1000), progrankFullPoolRows: probeWb.lastStats.rows, progrankFullPoolOnnxRuns: probeWb.lastStats.runs };
    }

    const seconds = mean(total) / 1000;
    return {
      progrankSecondsPerEvent: round(seconds),
      progrankOverForwardRatio: round(mean(total) / mean(forward), 2),
      progrankForwardMs: round(mean(forward), 1),
      progrankCpuSecondsPerEvent: round(mean(cpu) / 1000),
      progrankForwardCpuMs: round(mean(forwardCpu), 1),
      progrankCpuOverForwardCpuRatio: round(mean(cpu) / mean(forwardCpu), 2),
      progrankWhiteBoxSecondsPerEvent: round(mean(whiteBox) / 1000),
      progrankWhiteBoxOverForwardRatio: round(mean(whiteBox) / mean(forward), 2),
      progrankFirstPassMs: round(mean(firstPass), 1),
      progrankProbeMs: round(mean(probing), 1),
      progrankMathsMs: round(mean(maths), 2),
      progrankProbedTextsPerEvent: round(mean(probed), 2),
      progrankRowsPerEvent: round(mean(rows), 1),
      progrankOnnxRunsPerEvent: round(mean(onnxRuns), 1),
      progrankEvents: total.length,
      ...fullPool,
      probeEncoder: 'random-weight MiniLM-L6 shape (6x384, 12 heads, FFN 1536), generated at bench time',
      probeLayer: probe.layer,
      probeQuerySide: probe.querySide,
      tokenDropout: TOKEN_DROPOUT,
      passageTokens: { min: Math.min(...tokens), max: Math.max(...tokens), mean: round(mean(tokens), 1) },
      onnxThreads: THREADS,
      maxTokensPerRun: MAX_TOKENS_PER_RUN,
      modelGenerationMs: round(genMs, 0),
    };
  } finally {
    await probe.close();
    await probeWb.close();
    await plain.close();
  }
}

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'evidence-bench-'));
  const loadBefore = os.loadavg()[0];
  try {
    const bg = await benchBirdGrada(root);
    const pg = await benchProgrank(root);
    console.log(
      JSON.stringify({
        birdGradaMsPerEvent: bg.birdGradaMsPerEvent,
        progrankSecondsPerEvent: pg.progrankSecondsPerEvent,
        progrankOverForwardRatio: pg.progrankOverForwardRatio,
        cores: CORES,
        corpus: N,
        dim: DIM,
        runs: RUNS,
        pool: POOL,
        ...bg,
        ...pg,
        loadAvg1m: { before: round(loadBefore, 2), after: round(os.loadavg()[0], 2) },
        node: process.version,
      }),
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
