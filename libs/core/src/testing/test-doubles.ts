import { createHash } from 'node:crypto';
import type { Embedder } from '../ports/embedder.port';
import type { Judge, JudgeRequest, JudgeVerdict, VerdictLabel } from '../ports/judge.port';
import type { JudgeSignals } from '../ports/repositories/records';

/**
 * Deterministic bag-of-words embedder for tests (feature hashing: each lower-cased word adds ±1 to
 * one of `dimension` buckets chosen by sha256, then L2 normalisation). Texts sharing words are
 * close, so retrieval behaves sensibly on small synthetic corpora; no model to load.
 */
export class HashingEmbedder implements Embedder {
  readonly id: string;
  embedCalls = 0;
  embeddedTexts = 0;

  constructor(readonly dimension = 64) {
    if (!Number.isInteger(dimension) || dimension < 1) throw new RangeError(`dimension must be a positive integer, got ${dimension}`);
    this.id = `hashing-${dimension}`;
  }

  async init(): Promise<void> {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.embedCalls++;
    this.embeddedTexts += texts.length;
    return texts.map((t) => {
      const v = new Float32Array(this.dimension);
      for (const w of t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
        const h = createHash('sha256').update(w).digest();
        v[h.readUInt32BE(0) % this.dimension] += h[4] & 1 ? 1 : -1;
      }
      let n = 0;
      for (const x of v) n += x * x;
      n = Math.sqrt(n);
      if (n === 0) v[0] = 1;
      else for (let i = 0; i < v.length; i++) v[i] /= n;
      return v;
    });
  }

  async close(): Promise<void> {}
}

/**
 * A judge whose label comes from a function of the request; records every request it saw. The function may
 * also return the verdict's signals (`{ label, signals }`), as the offline judge reports them (score,
 * confidence band, coverage), for tests of the decisions that read them.
 */
export class ScriptedJudge implements Judge {
  readonly kind: string = 'scripted';
  readonly promptVersion: string = 'scripted-v1';
  readonly requests: JudgeRequest[] = [];

  constructor(private readonly decide: (req: JudgeRequest) => VerdictLabel | { label: VerdictLabel; signals?: JudgeSignals }, readonly model = 'scripted') {}

  async judge(req: JudgeRequest): Promise<JudgeVerdict> {
    this.requests.push(req);
    const out = this.decide(req);
    const { label, signals } = typeof out === 'string' ? { label: out, signals: undefined } : out;
    return { label, reply: `[Label: ${label === 'YES' ? 'Yes' : label === 'NO' ? 'No' : 'none'}]`, attempts: 1, latencyMs: 0, ...(signals ? { signals } : {}) };
  }
}
