/**
 * @jest-environment ./test/support/onnx-environment.js
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { affineEmbedding, cosine, pooledNormalizedInput, similarityGradient } from '@forensics/algorithms';
import { OnnxEmbedder } from '@forensics/infra/embedders';
import { findLayerNormByInput, OnnxGradientProbe, passageRunMasks, patchFloatInitializer, readOnnxGraph } from '@forensics/infra/probe';
import { LAST_LN_INPUT_OUTPUT, TINY_BERT_SHAPE, writeRandomBertOnnx, type RandomBertOnnxResult } from './support/random-bert-onnx';

const QUERY = 'who wrote the forensic traceback paper on poisoned knowledge bases?';
const PASSAGES = [
  'The traceback paper on poisoned retrieval-augmented generation was written by a group of security researchers who study knowledge corruption.',
  'Paris is the capital of France and its largest city, home to the Louvre and the Eiffel Tower.',
  'An attacker can inject a handful of crafted passages into a knowledge base so that the retriever ranks them first for a target question.',
];
const OPTS = { runs: 6, seed: 1234, tokenDropout: 0.1 };

/** Relative error with a floor so that near-zero coordinates compare absolutely. */
const relErr = (a: number, b: number, floor = 1e-7): number => Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), floor);

interface LnRow {
  data: Float32Array;
  seq: number;
  hidden: number;
  mask: Uint8Array;
}

describe('OnnxGradientProbe (closed-form ∂s/∂(γ,β) of the last LayerNorm)', () => {
  let root: string;
  let modelDir: string;
  let model: RandomBertOnnxResult;
  let probe: OnnxGradientProbe;
  let plain: OnnxEmbedder; // the unmodified embedder (last_hidden_state), + last_ln_input on request
  const H = TINY_BERT_SHAPE.hiddenSize;
  const report: Record<string, number> = {};

  /** last_ln_input of one text with its own token mask (e.g. a dropout mask). */
  async function lnInput(text: string, mask?: Uint8Array): Promise<LnRow> {
    const enc = await plain.encode([text]);
    const m = mask ?? new Uint8Array(enc.seqLength).fill(1);
    expect(m.length).toBe(enc.seqLength);
    const attentionMask = BigInt64Array.from(m, (v) => BigInt(v));
    const r = await plain.forwardEncoded({ ...enc, attentionMask }, [LAST_LN_INPUT_OUTPUT]);
    const t = r.extras[LAST_LN_INPUT_OUTPUT];
    return { data: t.data, seq: t.dims[1], hidden: t.dims[2], mask: m };
  }

  /** s(q, p) recomputed in float64 from last_ln_input with the given γ/β on each side. */
  function score(q: LnRow, p: LnRow, gq: ArrayLike<number>, bq: ArrayLike<number>, gp: ArrayLike<number>, bp: ArrayLike<number>): number {
    const eps = model.lastLayerNorm.epsilon;
    const xq = pooledNormalizedInput(q.data, 0, q.seq, q.hidden, q.mask, eps).xbar;
    const xp = pooledNormalizedInput(p.data, 0, p.seq, p.hidden, p.mask, eps).xbar;
    return cosine(affineEmbedding(xq, gq, bq), affineEmbedding(xp, gp, bp));
  }

  /** Central finite differences on sampled γ_i and β_i coordinates, pure TS; returns the max relative error. */
  function fdCheck(q: LnRow, p: LnRow, grad: Float32Array, shared: boolean, coords: number[], h = 1e-5): number {
    const { gamma, beta } = model.lastLayerNorm;
    let worst = 0;
    for (const which of ['gamma', 'beta'] as const) {
      for (const i of coords) {
        // Perturb in float64 (float32 storage would quantise ±h).
        const gp64 = Float64Array.from(gamma);
        const bp64 = Float64Array.from(beta);
        const gm64 = Float64Array.from(gamma);
        const bm64 = Float64Array.from(beta);
        if (which === 'gamma') {
          gp64[i] += h;
          gm64[i] -= h;
        } else {
          bp64[i] += h;
          bm64[i] -= h;
        }
        const f = (g: Float64Array, b: Float64Array): number => (shared ? score(q, p, g, b, g, b) : score(q, p, gamma, beta, g, b));
        const fd = (f(gp64, bp64) - f(gm64, bm64)) / (2 * h);
        const cf = grad[(which === 'gamma' ? 0 : H) + i];
        worst = Math.max(worst, relErr(fd, cf));
      }
    }
    return worst;
  }

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'gradient-probe-'));
    modelDir = join(root, 'tiny');
    model = await writeRandomBertOnnx(modelDir, { shape: TINY_BERT_SHAPE, seed: 11, exposeLastLayerNormInput: true });
    // No row cache: every call below really runs the encoder (the cache has its own test).
    probe = new OnnxGradientProbe({ modelDir, layerNorm: 'from-model', intraOpThreads: 1, cacheSize: 0 });
    plain = new OnnxEmbedder({ modelDir, intraOpThreads: 1 });
    await Promise.all([probe.init(), plain.init()]);
  });

  afterAll(async () => {
    await probe?.close();
    await plain?.close();
    if (root) await rm(root, { recursive: true, force: true });
    // eslint-disable-next-line no-console
    console.log(`gradient-probe finite differences: ${JSON.stringify(report)}`);
  });

  it("reads γ/β/ε of the LayerNorm consuming last_ln_input from the ONNX initializers ('from-model')", () => {
    expect(Array.from(probe.layerNorm.gamma)).toEqual(Array.from(model.lastLayerNorm.gamma));
    expect(Array.from(probe.layerNorm.beta)).toEqual(Array.from(model.lastLayerNorm.beta));
    expect(probe.layerNorm.epsilon).toBeCloseTo(model.lastLayerNorm.epsilon, 20);
    expect(probe.layer).toBe(`encoder.layer.${TINY_BERT_SHAPE.numLayers - 1}.output.LayerNorm (last)`);
    expect(probe.encoder).toBe(`onnx:${modelDir}`);
    expect(probe.exact).toBe(true);
    expect(probe.querySide).toBe('shared');
  });

  it('unperturbed scores equal the cosine of the ordinary embedder (last_hidden_state → mean pool → L2)', async () => {
    const res = await probe.probe(QUERY, PASSAGES, { ...OPTS, tokenDropout: 0, runs: 1 });
    const [q, ...ps] = await plain.embed([QUERY, ...PASSAGES]);
    ps.forEach((p, i) => expect(Math.abs(res.scores[i] - p.reduce((s, x, d) => s + x * q[d], 0))).toBeLessThan(1e-5));
    expect(res.gradients).toHaveLength(PASSAGES.length);
    res.gradients.forEach((runs) => {
      expect(runs).toHaveLength(1);
      expect(runs[0]).toBeInstanceOf(Float32Array);
      expect(runs[0]).toHaveLength(2 * H);
    });
  });

  it('closed form = central finite differences from last_ln_input (pure TS, shared and fixed query side, unperturbed and dropped-out masks)', async () => {
    const coords = [0, 3, 7, 12, 19, 25, 31];
    const q = await lnInput(QUERY);
    let worst = 0;
    // Unperturbed: compare with what the probe returns (query side shared, the default).
    const res = await probe.probe(QUERY, PASSAGES, { runs: 1, seed: 1, tokenDropout: 0 });
    for (let k = 0; k < PASSAGES.length; k++) {
      const p = await lnInput(PASSAGES[k]);
      worst = Math.max(worst, fdCheck(q, p, res.gradients[k][0], true, coords));
    }
    // Perturbed runs: the probe's own dropout masks, reproduced, and the probe's gradients.
    const pert = await probe.probe(QUERY, PASSAGES, OPTS);
    for (let k = 0; k < PASSAGES.length; k++) {
      const masks = passageRunMasks(OPTS.seed, PASSAGES[k], (await plain.encode([PASSAGES[k]])).inputIds, OPTS.runs, OPTS.tokenDropout);
      for (const r of [0, OPTS.runs - 1]) {
        const p = await lnInput(PASSAGES[k], masks[r]);
        worst = Math.max(worst, fdCheck(q, p, pert.gradients[k][r], true, coords));
      }
    }
    // Fixed query side: passage contribution only.
    const fixed = new OnnxGradientProbe({ modelDir, layerNorm: model.lastLayerNorm, querySide: 'fixed', intraOpThreads: 1 });
    try {
      const fr = await fixed.probe(QUERY, PASSAGES, { runs: 1, seed: 1, tokenDropout: 0 });
      const p = await lnInput(PASSAGES[0]);
      worst = Math.max(worst, fdCheck(q, p, fr.gradients[0][0], false, coords));
      expect(fr.scores).toEqual(res.scores);
      // The shared gradient is not the passage part alone.
      expect(relErr(fr.gradients[0][0][H], res.gradients[0][0][H])).toBeGreaterThan(1e-3);
    } finally {
      await fixed.close();
    }
    report.pureTsMaxRelErr = worst;
    expect(worst).toBeLessThan(1e-3);
  });

  it('closed form = central finite differences end to end (model rewritten with γ_i ± h / β_i ± h, run by onnxruntime)', async () => {
    const bytes = new Uint8Array(await readFile(join(modelDir, 'model.onnx')));
    const graph = readOnnxGraph(bytes);
    const ln = findLayerNormByInput(bytes, LAST_LN_INPUT_OUTPUT, graph);
    const res = await probe.probe(QUERY, [PASSAGES[0]], { runs: 1, seed: 1, tokenDropout: 0 });
    const grad = res.gradients[0][0];
    // The largest-magnitude coordinates of each part, where float32 forward noise matters least.
    const top = (part: 0 | 1): number[] =>
      Array.from({ length: H }, (_, i) => i)
        .sort((a, b) => Math.abs(grad[part * H + b]) - Math.abs(grad[part * H + a]))
        .slice(0, 2);
    const dir = join(root, 'patched');
    await writeRandomBertOnnx(dir, { shape: TINY_BERT_SHAPE, seed: 11, exposeLastLayerNormInput: true }); // tokenizer + config
    const h = 1e-2;
    const sAt = async (name: string, values: Float32Array): Promise<number> => {
      await writeFile(join(dir, 'model.onnx'), patchFloatInitializer(bytes, graph, name, values));
      const e = new OnnxEmbedder({ modelDir: dir, intraOpThreads: 1 });
      try {
        const [q, p] = await e.embed([QUERY, PASSAGES[0]]);
        let s = 0;
        for (let d = 0; d < q.length; d++) s += q[d] * p[d];
        return s;
      } finally {
        await e.close();
      }
    };
    let worst = 0;
    for (const [part, name, base] of [
      [0, ln.scaleName, ln.gamma],
      [1, ln.biasName, ln.beta],
    ] as const) {
      for (const i of top(part)) {
        const plus = Float32Array.from(base);
        const minus = Float32Array.from(base);
        plus[i] += h;
        minus[i] -= h;
        const hEff = (plus[i] - minus[i]) / 2; // the float32-representable step
        const fd = ((await sAt(name, plus)) - (await sAt(name, minus))) / (2 * hEff);
        worst = Math.max(worst, relErr(fd, grad[part * H + i]));
      }
    }
    report.endToEndMaxRelErr = worst;
    expect(worst).toBeLessThan(1e-3);
  });

  it('is deterministic under a fixed seed and independent of pool position and batching', async () => {
    const a = await probe.probe(QUERY, PASSAGES, OPTS);
    const b = await probe.probe(QUERY, PASSAGES, OPTS);
    expect(b.scores).toEqual(a.scores);
    a.gradients.forEach((runs, k) => runs.forEach((g, r) => expect(Array.from(b.gradients[k][r])).toEqual(Array.from(g))));
    // Another seed → other masks → other gradients.
    const c = await probe.probe(QUERY, PASSAGES, { ...OPTS, seed: 99 });
    expect(a.gradients.some((runs, k) => runs.some((g, r) => g.some((x, i) => x !== c.gradients[k][r][i])))).toBe(true);
    // A passage probed alone, in reverse order, or with a tiny per-run token budget gives the same signature.
    const alone = await probe.probe(QUERY, [PASSAGES[1]], OPTS);
    const small = new OnnxGradientProbe({ modelDir, layerNorm: 'from-model', intraOpThreads: 1, maxTokensPerRun: 40, cacheSize: 0 });
    try {
      const chunked = await small.probe(QUERY, [...PASSAGES].reverse(), OPTS);
      expect(small.lastStats.runs).toBeGreaterThan(probe.lastStats.runs);
      for (const [other, k] of [
        [alone, 0],
        [chunked, 1],
      ] as const) {
        expect(Math.abs(other.scores[k] - a.scores[1])).toBeLessThan(1e-6);
        other.gradients[k].forEach((g, r) => g.forEach((x, i) => expect(Math.abs(x - a.gradients[1][r][i])).toBeLessThan(1e-5)));
      }
    } finally {
      await small.close();
    }
  });

  it('runs differ with token dropout > 0 and are identical with dropout 0 (computed once)', async () => {
    const noisy = await probe.probe(QUERY, PASSAGES, OPTS);
    // ≤ 1 + 3·(1 + 6) = 22 rows (a run that dropped nothing, or two equal masks, is computed once),
    // in at most one onnxruntime run per text length (padding ≤ 10 %).
    expect(probe.lastStats.rows).toBeLessThanOrEqual(1 + PASSAGES.length * (1 + OPTS.runs));
    expect(probe.lastStats.rows).toBeGreaterThan(1 + PASSAGES.length * 2);
    expect(probe.lastStats.runs).toBeLessThanOrEqual(1 + PASSAGES.length);
    for (const runs of noisy.gradients) {
      const distinct = new Set(runs.map((g) => Array.from(g).join(',')));
      expect(distinct.size).toBeGreaterThan(1);
    }
    const clean = await probe.probe(QUERY, PASSAGES, { ...OPTS, tokenDropout: 0 });
    expect(probe.lastStats.rows).toBe(1 + PASSAGES.length);
    for (const runs of clean.gradients) runs.forEach((g) => expect(Array.from(g)).toEqual(Array.from(runs[0])));
    expect(clean.scores).toEqual(noisy.scores);
    // Special tokens are never dropped and at least one content token stays.
    const ids = [101, ...Array.from({ length: 10 }, (_, i) => 2000 + i), 102];
    for (const m of passageRunMasks(5, 'x', ids, 200, 0.9)) {
      expect(m[0]).toBe(1);
      expect(m[11]).toBe(1);
      expect(m.slice(1, 11).some((v) => v === 1)).toBe(true);
    }
  });

  it('serves repeated rows from its cache with identical results', async () => {
    const cached = new OnnxGradientProbe({ modelDir, layerNorm: 'from-model', intraOpThreads: 1 });
    try {
      const first = await cached.probe(QUERY, PASSAGES, { runs: 1, seed: 1, tokenDropout: 0 });
      expect(cached.lastStats).toMatchObject({ rows: 1 + PASSAGES.length, cachedRows: 0 });
      // The gated second pass: the unperturbed rows and the query come from the cache.
      const tail = await cached.probe(QUERY, PASSAGES.slice(0, 2), OPTS);
      expect(cached.lastStats.cachedRows).toBe(3);
      const again = await cached.probe(QUERY, PASSAGES.slice(0, 2), OPTS);
      expect(cached.lastStats.rows).toBe(0);
      expect(again).toEqual(tail);
      const fresh = await probe.probe(QUERY, PASSAGES.slice(0, 2), OPTS);
      expect(fresh.scores).toEqual(first.scores.slice(0, 2).map((x) => expect.closeTo(x, 6)) as unknown as number[]);
      fresh.gradients.forEach((runs, k) => runs.forEach((g, r) => g.forEach((x, i) => expect(Math.abs(x - tail.gradients[k][r][i])).toBeLessThan(1e-5))));
    } finally {
      await cached.close();
    }
  });

  it('rejects bad options', async () => {
    await expect(probe.probe(QUERY, PASSAGES, { ...OPTS, runs: 0 })).rejects.toThrow(/runs/);
    await expect(probe.probe(QUERY, PASSAGES, { ...OPTS, tokenDropout: 1 })).rejects.toThrow(/tokenDropout/);
    expect(await probe.probe(QUERY, [], OPTS)).toEqual({ scores: [], gradients: [] });
    expect(() => new OnnxGradientProbe({ modelDir, layerNorm: { gamma: new Float32Array(3), beta: new Float32Array(2), epsilon: 1e-12 } })).toThrow(/layerNorm/);
    const wrongWidth = new OnnxGradientProbe({ modelDir, layerNorm: { gamma: new Float32Array(8), beta: new Float32Array(8), epsilon: 1e-12 } });
    await expect(wrongWidth.init()).rejects.toThrow(/width/);
    await wrongWidth.close();
  });

  it('requires the last_ln_input graph output, with a clear error', async () => {
    const dir = join(root, 'no-extra');
    await writeRandomBertOnnx(dir, { shape: TINY_BERT_SHAPE, seed: 11 });
    const p = new OnnxGradientProbe({ modelDir: dir, layerNorm: 'from-model' });
    await expect(p.init()).rejects.toThrow(/does not expose the last LayerNorm's input as the graph output 'last_ln_input'/);
    await expect(p.probe(QUERY, PASSAGES, OPTS)).rejects.toThrow(/last_ln_input/);
    await p.close();
    const missing = new OnnxGradientProbe({ modelDir: join(root, 'nowhere'), layerNorm: 'from-model' });
    await expect(missing.init()).rejects.toThrow(/cannot read/);
  });
});
