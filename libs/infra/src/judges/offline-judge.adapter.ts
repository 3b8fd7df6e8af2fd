import { OFFLINE_JUDGE_MODEL, offlineJudge, type OfflineJudgeParams } from '@forensics/algorithms';
import type { Judge, JudgeRequest, JudgeVerdict } from '@forensics/core';

/**
 * The offline evidence judge: no LLM. Labelled `offline` in every verdict it gives; its reply is
 * the explanation in words and `signals` the numbers that decided (see `offlineJudge` in
 * @forensics/algorithms).
 */
export class OfflineJudge implements Judge {
  readonly kind = 'offline';
  readonly model = OFFLINE_JUDGE_MODEL;
  readonly promptVersion = 'offline-v1';

  constructor(private readonly params: Partial<OfflineJudgeParams> = {}) {}

  async judge(req: JudgeRequest): Promise<JudgeVerdict> {
    const t0 = performance.now();
    const r = offlineJudge({ query: req.query, wrongAnswer: req.wrongAnswer, text: req.text, peers: req.peers, context: req.context }, this.params);
    const label = r.label === 'YES' ? '[Label: Yes]' : r.label === 'NO' ? '[Label: No]' : '[Label: Undetermined]';
    return {
      label: r.label,
      reply: `[offline judge, no LLM] ${r.explanation} ${label}`,
      attempts: 1,
      latencyMs: performance.now() - t0,
      signals: { ...r.signals, score: r.score },
      spans: r.spans,
    };
  }
}
