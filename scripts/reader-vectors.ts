/**
 * Dumps the encoder's vectors for the judge's training rows (issue 59), for fitting a head on them outside the
 * product's fit (scripts/reader-head-probe.py, decision 0410): per row that states the answer, all-MiniLM-L6-v2's mean-pooled vectors
 * of the question, "question? answer", the text and the claim sentence, the answer's mean token state inside the claim
 * and inside "question? answer", and two token-level alignments (question tokens → claim tokens, claim → question:
 * the mean over one side's word pieces of the best cosine on the other side).
 *
 *   npx tsx scripts/reader-vectors.ts [--data-dir ../shared/data] [--out .eval/reader-vectors]
 *
 * Writes OUT/rows.jsonl (family, poisoned, the rule judge's features, the row's vector index) and OUT/vectors.f32
 * (little-endian float32, VECTOR_WIDTH per index). Nothing here is committed; the data stays in ../shared/data.
 */
import { mkdirSync, writeFileSync, createWriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildDevRows, byFamily, loadJudgeFitFiles } from '../apps/eval/src/judge-fit/dev-rows';
import { MINILM_ID, modelsDirOf, OnnxEmbedder, questionAnswer, answerState, type OnnxForwardResult } from '@forensics/infra';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const dataDir = resolve(arg('data-dir', join(__dirname, '..', '..', 'shared', 'data')));
const out = resolve(arg('out', join(__dirname, '..', '.eval', 'reader-vectors')));
const DIM = 384;
const BATCH = 32;

/** Token states of row b (without [CLS]/[SEP]), unit length each. */
function tokenStates(r: OnnxForwardResult, b: number): Float32Array[] {
  const seq = r.seqLength;
  let len = 0;
  for (let t = 0; t < seq; t++) if (r.attentionMask[b * seq + t] === 1n) len++;
  const states: Float32Array[] = [];
  for (let t = 1; t < len - 1; t++) {
    const v = r.hidden.data.slice((b * seq + t) * DIM, (b * seq + t + 1) * DIM);
    let n = 0; for (let d = 0; d < DIM; d++) n += v[d] * v[d];
    const inv = 1 / Math.max(Math.sqrt(n), 1e-12); for (let d = 0; d < DIM; d++) v[d] *= inv;
    states.push(v);
  }
  return states;
}

function maxSim(from: readonly Float32Array[], to: readonly Float32Array[]): number {
  if (!from.length || !to.length) return 0;
  let sum = 0;
  for (const a of from) {
    let best = -1;
    for (const b of to) { let d = 0; for (let i = 0; i < DIM; i++) d += a[i] * b[i]; if (d > best) best = d; }
    sum += best;
  }
  return sum / from.length;
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const enc = new OnnxEmbedder({ modelDir: join(modelsDirOf(process.env.MODELS_DIR), MINILM_ID), id: MINILM_ID });
  await enc.init();
  const rows = byFamily(buildDevRows(loadJudgeFitFiles(dataDir), { partialSupportMin: 0.34 })).filter((r) => r.support > 0 && !r.verbatimLong);
  console.error(`rows stating the answer: ${rows.length} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  const claimOf = (r: (typeof rows)[number]) => r.claims?.[0] ?? r.text ?? '';
  const answerOf = (r: (typeof rows)[number]) => r.answerRead ?? r.wrongAnswer ?? '';
  const uniq = <T>(xs: T[]) => [...new Set(xs)];
  const answerIds = new Map<string, number[]>();
  for (const a of uniq(rows.map(answerOf))) { const e = await enc.encode([a]); answerIds.set(a, Array.from(e.inputIds.slice(1, e.lengths[0] - 1), Number)); }

  // Questions and "question? answer": pooled vectors, the question's token states, the answer's state in "q? a".
  const qVec = new Map<string, Float32Array>(); const qTok = new Map<string, Float32Array[]>();
  const qaVec = new Map<string, Float32Array>(); const qaAns = new Map<string, Float32Array | null>();
  const queries = uniq(rows.map((r) => r.query ?? ''));
  for (let s = 0; s < queries.length; s += BATCH) {
    const batch = queries.slice(s, s + BATCH);
    const r = await enc.forward(batch);
    batch.forEach((q, b) => { qVec.set(q, r.embeddings[b]); qTok.set(q, tokenStates(r, b)); });
  }
  const qaKeys = uniq(rows.map((r) => `${r.query}\u0000${answerOf(r)}`));
  for (let s = 0; s < qaKeys.length; s += BATCH) {
    const batch = qaKeys.slice(s, s + BATCH);
    const r = await enc.forward(batch.map((k) => { const [q, a] = k.split('\u0000'); return questionAnswer(q, a); }));
    batch.forEach((k, b) => { qaVec.set(k, r.embeddings[b]); qaAns.set(k, answerState(r, b, answerIds.get(k.split('\u0000')[1])!, true)); });
  }
  console.error(`questions: ${queries.length}, question-answer pairs: ${qaKeys.length} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  // Texts: pooled vectors, batched by length.
  const texts = uniq(rows.map((r) => r.text ?? ''));
  const tv = await enc.embed(texts);
  const textVec = new Map(texts.map((t, i) => [t, tv[i]]));
  console.error(`texts: ${texts.length} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  // Claims with the answer and the question they are read for: pooled vector, the answer's state, the alignments.
  const claimKeys = uniq(rows.map((r) => `${claimOf(r)}\u0000${answerOf(r)}\u0000${r.query}`));
  const byClaim = new Map<string, string[]>();
  for (const k of claimKeys) { const c = k.split('\u0000')[0]; byClaim.set(c, [...(byClaim.get(c) ?? []), k]); }
  const claims = [...byClaim.keys()].sort((a, b) => a.length - b.length);
  const claimVec = new Map<string, Float32Array>(); const claimAns = new Map<string, Float32Array | null>(); const align = new Map<string, [number, number]>();
  for (let s = 0; s < claims.length; s += BATCH) {
    const batch = claims.slice(s, s + BATCH);
    const r = await enc.forward(batch);
    batch.forEach((c, b) => {
      const toks = tokenStates(r, b);
      for (const k of byClaim.get(c)!) {
        const [, a, q] = k.split('\u0000');
        claimVec.set(k, r.embeddings[b]);
        claimAns.set(k, answerState(r, b, answerIds.get(a)!, false));
        align.set(k, [maxSim(qTok.get(q)!, toks), maxSim(toks, qTok.get(q)!)]);
      }
    });
    if ((s / BATCH) % 50 === 0) console.error(`claims ${s}/${claims.length} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  mkdirSync(out, { recursive: true });
  const vec = createWriteStream(join(out, 'vectors.f32'));
  const meta: string[] = [];
  const zero = new Float32Array(DIM);
  rows.forEach((r, i) => {
    const qa = `${r.query}\u0000${answerOf(r)}`;
    const ck = `${claimOf(r)}\u0000${answerOf(r)}\u0000${r.query}`;
    const parts = [qVec.get(r.query ?? '')!, qaVec.get(qa)!, textVec.get(r.text ?? '')!, claimVec.get(ck)!, claimAns.get(ck) ?? zero, qaAns.get(qa) ?? zero];
    const buf = new Float32Array(parts.length * DIM);
    parts.forEach((p, j) => buf.set(p, j * DIM));
    vec.write(Buffer.from(buf.buffer));
    meta.push(JSON.stringify({ i, family: r.file, set: r.poisonSet, q: r.question, poisoned: r.poisoned, x: Array.from(r.x), align: align.get(ck), hasAnswerTokens: Boolean(claimAns.get(ck) && qaAns.get(qa)) }));
  });
  await new Promise((res) => vec.end(res));
  writeFileSync(join(out, 'rows.jsonl'), `${meta.join('\n')}\n`);
  await enc.close();
  console.error(`wrote ${rows.length} rows to ${out} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
}

main().catch((e: unknown) => { console.error(e); process.exitCode = 1; });
