import { quantileLinear } from '@forensics/algorithms';
import type { GradientProbe, GradientProbeOptions, GradientProbeResult } from '../../../../ports/gradient-probe.port';
import { InMemoryVectorStore } from '../../../../testing';
import { collectEvidence, DEFAULT_EVIDENCE_SETTINGS } from '../collect-evidence';

/**
 * ProGRank's gate in the traceback (ProGRank, arXiv 2603.22934, §3.5): μ is estimated on the
 * bounded first-stage pool of top-B texts (B > K), not on the collection:
 *   μ = Quantile_{1−m/B}({s(q,p)}_{p ∈ top-B}),  m = ⌈√B⌉   (Eq. 11 with D = the pool),
 * and only the pool's upper tail (s ≥ μ, at most K texts) is probed.
 *
 * Scores are set exactly: q = e₀ and a text with score s has the unit vector (s, √(1 − s²)), so its
 * cosine with q is s. The probe is the retriever's encoder (white-box), so s(q,p) = the retrieval
 * score, and it hands back fixed gradients (their values do not matter for the gate).
 */
class FixedProbe implements GradientProbe {
  readonly encoder = 'unit-test-encoder';
  readonly layer = 'unit-test LayerNorm';
  readonly exact = true;
  probedTexts: string[] = [];
  async init(): Promise<void> {}
  async close(): Promise<void> {}
  async probe(_q: string, passages: readonly string[], opts: GradientProbeOptions): Promise<GradientProbeResult> {
    if (opts.runs > 1) this.probedTexts.push(...passages);
    return {
      scores: passages.map(() => 0),
      gradients: passages.map((p) => Array.from({ length: opts.runs }, (_, r) => Float32Array.from([1 + (p.length % 3), r % 2, 0.5, (r * 7) % 5]))),
    };
  }
}

const K = 5;
const B = 20;
const M = Math.ceil(Math.sqrt(B)); // 5
/** Pool scores, best first: ranks 1..20. */
const POOL = Array.from({ length: B }, (_, i) => +(0.95 - 0.02 * i).toFixed(4));

async function run(poolScores: number[], farTexts: number, maxProbes?: number) {
  const store = new InMemoryVectorStore();
  await store.ensureCollection('c', 2);
  const vec = (s: number) => Float32Array.from([s, Math.sqrt(1 - s * s)]);
  await store.upsert('c', [
    ...poolScores.map((s, i) => ({ id: `p${String(i).padStart(2, '0')}`, vector: vec(s), text: `pool text ${i}` })),
    // Far below the pool: part of the collection, never of the top-B.
    ...Array.from({ length: farTexts }, (_, i) => ({ id: `f${i}`, vector: vec(-0.5 + (0.4 * i) / Math.max(1, farTexts)), text: `far text ${i}` })),
  ]);
  const probe = new FixedProbe();
  const judgedIds = poolScores.slice(0, 2 * K).map((_, i) => `p${String(i).padStart(2, '0')}`);
  const out = await collectEvidence({
    store, probe, collection: 'c', query: 'q', queryVector: [1, 0], retrieverId: probe.encoder, k: K, judgedIds,
    settings: { ...DEFAULT_EVIDENCE_SETTINGS, progrankRuns: 4, progrankPoolSize: B, progrankMaxProbes: maxProbes },
  });
  const gate = (id: string) => (out[id].progrank as { gateWeight: number }).gateWeight;
  return { out, gate, judgedIds, probe };
}

const logistic = (x: number) => 1 / (1 + Math.exp(-x));
/** μ from a gate weight: w = σ(s − μ) ⇒ μ = s − logit(w). */
const muFrom = (s: number, w: number) => s - Math.log(w / (1 - w));

describe('collectEvidence: the ProGRank gate is estimated on the top-B pool (§3.5)', () => {
  it('μ = Quantile_{1−⌈√B⌉/B} of the pool scores, whatever the size of the collection', async () => {
    const expected = quantileLinear(POOL, 1 - M / B); // h = 19·0.75 = 14.25 → between ranks 6 and 5
    expect(expected).toBeCloseTo(POOL[5] + 0.25 * (POOL[4] - POOL[5]), 12);
    for (const far of [0, 400]) {
      const { gate, judgedIds } = await run(POOL, far);
      judgedIds.forEach((id, i) => {
        expect(gate(id)).toBeCloseTo(logistic(POOL[i] - expected), 5);
        expect(muFrom(POOL[i], gate(id))).toBeCloseTo(expected, 4);
      });
    }
    // Over the whole collection (|D| = 420, m = 21 > B) μ would have been the pool's minimum.
    expect(quantileLinear(POOL, 0)).toBeLessThan(expected - 0.2);
  });

  it('moving a pool member outside the top-K moves μ by the quantile weight; members past the quantile do not', async () => {
    const base = quantileLinear(POOL, 1 - M / B);
    // Rank 6 (outside the top-5) carries weight 1 − 0.25 = 0.75 of μ (h = 14.25 on the ascending order).
    const moved = [...POOL];
    moved[5] += 0.01;
    const r6 = await run(moved, 100);
    expect(muFrom(moved[0], r6.gate('p00'))).toBeCloseTo(base + 0.75 * 0.01, 4);
    // Rank 15 is below the quantile: μ stays.
    const deep = [...POOL];
    deep[14] += 0.01;
    const r15 = await run(deep, 100);
    expect(muFrom(deep[0], r15.gate('p00'))).toBeCloseTo(base, 4);
  });

  it('probes only the upper tail of the pool (s ≥ μ), however many probes the cap allows', async () => {
    const { out, probe, judgedIds } = await run(POOL, 100, 2 * K);
    const mu = quantileLinear(POOL, 1 - M / B);
    const probed = judgedIds.filter((id) => (out[id].progrank as { probed?: boolean }).probed);
    expect(probed.length).toBeGreaterThan(0);
    expect(probed.length).toBeLessThanOrEqual(M + 1);
    for (const id of judgedIds) {
      const s = POOL[Number(id.slice(1))];
      expect(probed.includes(id)).toBe(s >= mu);
    }
    expect(new Set(probe.probedTexts).size).toBe(probed.length);
  });
});
