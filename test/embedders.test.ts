/**
 * @jest-environment ./test/support/onnx-environment.js
 */
import { mkdtemp, readFile, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder, OnnxEmbedder, UseLiteEmbedder } from '@forensics/infra/embedders';
import { LAST_LN_INPUT_OUTPUT, MINILM_L6_SHAPE, TINY_BERT_SHAPE, writeRandomBertOnnx, type RandomBertOnnxResult } from './support/random-bert-onnx';

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (a: Float32Array): number => Math.sqrt(dot(a, a));
const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

const TEXTS = [
  'The capital of France is Paris.',
  'Poisoned passages are injected into the knowledge base to steer the answer of a retrieval-augmented generator.',
  'ok',
  'Forensic traceback identifies which texts in the corpus caused a wrong answer, even when the attacker hides them among many benign documents.',
];

describe('UseLiteEmbedder (USE-lite, TF.js WASM)', () => {
  const embedder = new UseLiteEmbedder({ batchSize: 2 });

  beforeAll(async () => {
    // Concurrent first calls must share one load.
    await Promise.all([embedder.init(), embedder.init(), embedder.embed(['warm up'])]);
  });
  afterAll(() => embedder.close());

  it('returns one 512-d unit vector per text, in order', async () => {
    expect(embedder.id).toBe('use-lite');
    expect(embedder.dimension).toBe(512);
    const vs = await embedder.embed(TEXTS);
    expect(vs).toHaveLength(TEXTS.length);
    for (const v of vs) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(512);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
  });

  it('puts a paraphrase closer than an unrelated sentence', async () => {
    const [q, para, other] = await embedder.embed([
      'How do I reset my password?',
      'What are the steps to change my password?',
      'The stock market fell sharply on Tuesday.',
    ]);
    const simPara = dot(q, para);
    const simOther = dot(q, other);
    expect(simPara).toBeGreaterThan(simOther + 0.2);
  });

  it('is deterministic and independent of internal batching', async () => {
    const a = await embedder.embed(TEXTS); // batches of 2
    const b = await embedder.embed(TEXTS);
    const single: Float32Array[] = [];
    for (const t of TEXTS) single.push(...(await embedder.embed([t])));
    a.forEach((v, i) => {
      expect(maxAbsDiff(v, b[i])).toBe(0);
      expect(maxAbsDiff(v, single[i])).toBeLessThan(1e-5);
    });
  });

  it('keeps empty texts in place instead of dropping their rows', async () => {
    const vs = await embedder.embed(['hello', '', 'world', '']);
    expect(vs).toHaveLength(4);
    expect(dot(vs[1], vs[3])).toBeCloseTo(1, 5);
    expect(dot(vs[0], vs[2])).toBeLessThan(0.99);
    expect(await embedder.embed([])).toEqual([]);
  });
});

describe('OnnxEmbedder on a generated MiniLM-L6-shape random BERT', () => {
  let dir: string;
  let generated: RandomBertOnnxResult;
  let embedder: OnnxEmbedder;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'onnx-minilm-'));
    generated = await writeRandomBertOnnx(dir, { seed: 7, exposeLastLayerNormInput: true });
    embedder = new OnnxEmbedder({ modelDir: dir, intraOpThreads: 2 });
    await embedder.init();
  });
  afterAll(async () => {
    await embedder?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('generates the real MiniLM shape and exposes the last LayerNorm input', () => {
    expect(generated.shape).toEqual(MINILM_L6_SHAPE);
    expect(generated.outputNames).toEqual(['last_hidden_state', LAST_LN_INPUT_OUTPUT]);
    expect(embedder.outputNames).toEqual(['last_hidden_state', LAST_LN_INPUT_OUTPUT]);
    expect(generated.lastLayerNorm.gamma).toHaveLength(384);
  });

  it('returns 384-d unit vectors with id onnx:<dir>', async () => {
    expect(embedder.id).toBe(`onnx:${dir}`);
    expect(embedder.dimension).toBe(384);
    const vs = await embedder.embed(TEXTS);
    expect(vs).toHaveLength(TEXTS.length);
    for (const v of vs) {
      expect(v).toHaveLength(384);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    // Distinct texts give distinct vectors even with random weights.
    expect(dot(vs[0], vs[2])).toBeLessThan(0.9999);
  });

  it('gives the same embedding for a text alone and inside a padded batch', async () => {
    const batch = await embedder.embed(TEXTS);
    for (let i = 0; i < TEXTS.length; i++) {
      const [alone] = await embedder.embed([TEXTS[i]]);
      expect(maxAbsDiff(batch[i], alone)).toBeLessThan(1e-5);
    }
  });

  it('mean-pools over real tokens only, ignoring padding positions', async () => {
    const r = await embedder.forward(['ok', TEXTS[3]]);
    const [, seq, dim] = r.hidden.dims;
    expect(r.seqLength).toBe(seq);
    const realTokens = Number(r.attentionMask.slice(0, seq).reduce((a, b) => a + b, 0n));
    expect(realTokens).toBe(3); // [CLS] ok [SEP]
    expect(seq).toBeGreaterThan(realTokens);

    const masked = new Float32Array(dim);
    const naive = new Float32Array(dim);
    for (let t = 0; t < seq; t++) {
      for (let d = 0; d < dim; d++) {
        const x = r.hidden.data[t * dim + d];
        if (t < realTokens) masked[d] += x / realTokens;
        naive[d] += x / seq;
      }
    }
    const expected = masked.map((x) => x / norm(masked));
    const naiveNorm = naive.map((x) => x / norm(naive));
    expect(maxAbsDiff(r.embeddings[0], expected)).toBeLessThan(1e-5);
    // The padded positions do carry hidden states, so including them would change the result.
    expect(maxAbsDiff(r.embeddings[0], naiveNorm)).toBeGreaterThan(1e-2);
  });

  it('rowsPerRun runs rows in groups cut to their own length and lays them back as one run would', async () => {
    const texts = ['ok', TEXTS[3], TEXTS[0], ''];
    const whole = await embedder.forward(texts, [LAST_LN_INPUT_OUTPUT]);
    for (const rowsPerRun of [1, 3]) {
      const grouped = new OnnxEmbedder({ modelDir: dir, intraOpThreads: 2, rowsPerRun });
      try {
        const r = await grouped.forward(texts, [LAST_LN_INPUT_OUTPUT]);
        expect(r.hidden.dims).toEqual(whole.hidden.dims);
        expect(r.extras[LAST_LN_INPUT_OUTPUT].dims).toEqual(whole.extras[LAST_LN_INPUT_OUTPUT].dims);
        expect(r.inputIds).toEqual(whole.inputIds);
        r.embeddings.forEach((v, i) => expect(maxAbsDiff(v, whole.embeddings[i])).toBeLessThan(1e-5));
        // Real positions carry the same states; one row per run leaves its padding zero (the mask ignores it).
        const [, seq, dim] = r.hidden.dims;
        for (let b = 0; b < texts.length; b++) {
          const real = Number(r.attentionMask.slice(b * seq, (b + 1) * seq).reduce((a, x) => a + x, 0n));
          expect(maxAbsDiff(r.hidden.data.subarray(b * seq * dim, (b * seq + real) * dim), whole.hidden.data.subarray(b * seq * dim, (b * seq + real) * dim))).toBeLessThan(1e-4);
          if (rowsPerRun === 1) expect(r.hidden.data.subarray((b * seq + real) * dim, (b + 1) * seq * dim).every((x) => x === 0)).toBe(true);
        }
        expect(await grouped.embed(texts)).toHaveLength(texts.length);
      } finally {
        await grouped.close();
      }
    }
    expect(() => new OnnxEmbedder({ modelDir: dir, rowsPerRun: 0 })).toThrow(/rowsPerRun/);
  });

  it('exports last_ln_input so that LayerNorm(x; γ, β) reproduces last_hidden_state', async () => {
    const r = await embedder.forward(TEXTS.slice(0, 3), [LAST_LN_INPUT_OUTPUT]);
    const x = r.extras[LAST_LN_INPUT_OUTPUT];
    expect(x.dims).toEqual(r.hidden.dims);
    const { gamma, beta, epsilon } = generated.lastLayerNorm;
    const H = gamma.length;
    const rebuilt = new Float32Array(x.data.length);
    for (let row = 0; row < x.data.length / H; row++) {
      const v = x.data.subarray(row * H, (row + 1) * H);
      const mean = v.reduce((s, a) => s + a, 0) / H;
      const variance = v.reduce((s, a) => s + (a - mean) ** 2, 0) / H;
      const inv = 1 / Math.sqrt(variance + epsilon);
      for (let d = 0; d < H; d++) rebuilt[row * H + d] = gamma[d] * (v[d] - mean) * inv + beta[d];
    }
    expect(maxAbsDiff(rebuilt, r.hidden.data)).toBeLessThan(1e-4);
    // γ/β are not the identity, so this check would catch a wrong tensor or swapped parameters.
    expect(maxAbsDiff(x.data, r.hidden.data)).toBeGreaterThan(0.1);
  });

  it('runs pre-tokenised batches (for token-dropout perturbations) like forward()', async () => {
    const enc = await embedder.encode([TEXTS[0]]);
    const viaText = await embedder.forward([TEXTS[0]]);
    const viaIds = await embedder.forwardEncoded(enc);
    expect(maxAbsDiff(viaIds.embeddings[0], viaText.embeddings[0])).toBe(0);
    // Dropping one word piece (mask it out) changes the embedding.
    const dropped = { ...enc, attentionMask: enc.attentionMask.slice() };
    dropped.attentionMask[2] = 0n;
    const perturbed = await embedder.forwardEncoded(dropped);
    expect(maxAbsDiff(perturbed.embeddings[0], viaText.embeddings[0])).toBeGreaterThan(1e-4);
    await expect(embedder.forwardEncoded({ ...enc, seqLength: enc.seqLength + 1 })).rejects.toThrow(/do not match/);
  });

  it('embeds texts longer than the 256-token limit (truncated)', async () => {
    const long = 'poisoned passage '.repeat(400);
    const r = await embedder.forward([long]);
    expect(r.seqLength).toBe(256);
    expect(r.embeddings[0]).toHaveLength(384);
  });

  it('rejects unknown extra outputs clearly', async () => {
    await expect(embedder.forward(['x'], ['nope'])).rejects.toThrow(/no output\(s\) nope/);
  });
});

describe('OnnxEmbedder on a tiny random BERT', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'onnx-tiny-'));
    await writeRandomBertOnnx(dir, { shape: TINY_BERT_SHAPE, seed: 3 });
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('writes byte-identical models for the same seed and different ones for another seed', async () => {
    const again = await mkdtemp(join(tmpdir(), 'onnx-tiny-'));
    const other = await mkdtemp(join(tmpdir(), 'onnx-tiny-'));
    try {
      await writeRandomBertOnnx(again, { shape: TINY_BERT_SHAPE, seed: 3 });
      await writeRandomBertOnnx(other, { shape: TINY_BERT_SHAPE, seed: 4 });
      const [a, b, c] = await Promise.all([dir, again, other].map((d) => readFile(join(d, 'model.onnx'))));
      expect(a.equals(b)).toBe(true);
      expect(a.equals(c)).toBe(false);
    } finally {
      await rm(again, { recursive: true, force: true });
      await rm(other, { recursive: true, force: true });
    }
  });

  it('batches internally without changing results and has no extra outputs', async () => {
    const e = new OnnxEmbedder({ modelDir: dir, intraOpThreads: 1, batchSize: 2 });
    try {
      expect(() => e.dimension).toThrow(/after init/);
      const [all] = await Promise.all([e.embed(TEXTS), e.init()]);
      expect(e.dimension).toBe(32);
      expect(e.outputNames).toEqual(['last_hidden_state']);
      for (let i = 0; i < TEXTS.length; i++) {
        const [alone] = await e.embed([TEXTS[i]]);
        expect(maxAbsDiff(all[i], alone)).toBeLessThan(1e-5);
      }
      await expect(e.forward(['x'], [LAST_LN_INPUT_OUTPUT])).rejects.toThrow(/no output/);
    } finally {
      await e.close();
    }
  });

  it('reports a missing directory and missing files clearly', async () => {
    await expect(new OnnxEmbedder({ modelDir: join(dir, 'nope') }).init()).rejects.toThrow(/model directory .* does not exist/);
    const empty = await mkdtemp(join(tmpdir(), 'onnx-empty-'));
    try {
      await expect(new OnnxEmbedder({ modelDir: empty }).init()).rejects.toThrow(/model\.onnx and .*tokenizer\.json not found/);
      const partial = await mkdtemp(join(tmpdir(), 'onnx-partial-'));
      await writeRandomBertOnnx(partial, { shape: TINY_BERT_SHAPE });
      await unlink(join(partial, 'tokenizer.json'));
      await expect(new OnnxEmbedder({ modelDir: partial }).init()).rejects.toThrow(/tokenizer\.json not found/);
      await rm(partial, { recursive: true, force: true });
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('is built by createEmbedder for each kind', () => {
    const onnx = createEmbedder({ kind: 'onnx', onnxModelDir: dir });
    expect(onnx).toBeInstanceOf(OnnxEmbedder);
    expect(onnx.id).toBe(`onnx:${dir}`);
    expect(createEmbedder({ kind: 'use-lite' })).toBeInstanceOf(UseLiteEmbedder);
    const openai = createEmbedder({ kind: 'openai', openai: { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'k', model: 'text-embedding-3-small', dimension: 1536 } });
    expect(openai.id).toBe('openai:text-embedding-3-small');
    expect(openai.dimension).toBe(1536);
    expect(() => createEmbedder({ kind: 'onnx' })).toThrow(/needs onnxModelDir/);
    expect(() => createEmbedder({ kind: 'openai' })).toThrow(/needs openai/);
  });
});
