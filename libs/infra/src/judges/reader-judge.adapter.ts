import {
  evidenceLogit, OFFLINE_JUDGE_FEATURES, offlineJudgeFeatures, offlineVerdict, READER_FEATURES, READER_JUDGE_MODEL,
  validateOfflineJudgeParams, type OfflineJudgeParams, type OfflineJudgeWeights, type ReaderFeatures, type ReaderJudgeFit,
} from '@forensics/algorithms';
import type { Judge, JudgeRequest, JudgeVerdict } from '@forensics/core';
import type { TextReader } from './minilm-reader';

export type { ReaderJudgeFit };

/** The rule judge's params and the reader's weights of a fit. */
export function readerJudgeParams(fit: ReaderJudgeFit): { params: Partial<OfflineJudgeParams>; readerWeights: Partial<ReaderFeatures> } {
  const rule: OfflineJudgeWeights = { bias: fit.weights.bias ?? 0 };
  const readerWeights: Partial<ReaderFeatures> = {};
  for (const [k, v] of Object.entries(fit.weights)) {
    if ((OFFLINE_JUDGE_FEATURES as readonly string[]).includes(k)) (rule as Record<string, number>)[k] = v;
    else if ((READER_FEATURES as readonly string[]).includes(k)) readerWeights[k as keyof ReaderFeatures] = v;
    else if (k !== 'bias') throw new RangeError(`reader judge fit: weight '${k}' is not a feature of the rule judge or of the reader`);
  }
  return {
    params: { partialSupportMin: fit.partialSupportMin, weights: rule, yesThreshold: fit.yesThreshold, undeterminedBelow: fit.yesThreshold, bandLow: fit.band.low, bandHigh: fit.band.high },
    readerWeights,
  };
}

/**
 * The reader judge (issue 59): the rule judge's reading of the text (does it state the answer, where, how much of the
 * question it restates, what its peers say) and the reader's (`MiniLmReader`: what all-MiniLM-L6-v2's token states say
 * about the claim sentence's relation to the question and the answer's role in it), scored by one logistic fitted on
 * both (leave-one-attack-family-out, apps/eval/src/judge-fit). Only a text that states the answer is read by the
 * encoder: the others score 0 whatever the weights, as with the rule judge.
 */
export class ReaderJudge implements Judge {
  readonly kind = 'reader';
  readonly model: string;
  readonly promptVersion = 'reader-v1';
  private readonly params: OfflineJudgeParams;
  private readonly readerWeights: Partial<ReaderFeatures>;

  constructor(private readonly reader: TextReader, fit: ReaderJudgeFit) {
    if (fit.encoder !== reader.id) throw new Error(`reader judge: fitted on encoder ${fit.encoder}, given ${reader.id}`);
    const { params, readerWeights } = readerJudgeParams(fit);
    this.params = validateOfflineJudgeParams(params);
    this.readerWeights = readerWeights;
    this.model = fit.model ?? READER_JUDGE_MODEL;
  }

  async judge(req: JudgeRequest): Promise<JudgeVerdict> {
    const t0 = performance.now();
    const input = { query: req.query, wrongAnswer: req.wrongAnswer, text: req.text, peers: req.peers, context: req.context };
    const ev = offlineJudgeFeatures(input, this.params);
    let z = ev.judgeable ? evidenceLogit(ev.features, this.params.weights) : 0;
    let read: Partial<ReaderFeatures> = {};
    if (ev.judgeable && ev.support > 0 && !ev.verbatimLong && Object.keys(this.readerWeights).length) {
      const f = await this.reader.read({ query: req.query, answer: ev.answer ?? req.wrongAnswer, text: req.text, claims: ev.claimSentences, sentences: ev.sentences ?? [] });
      read = f;
      for (const k of READER_FEATURES) z += (this.readerWeights[k] ?? 0) * f[k];
    }
    const r = offlineVerdict(input, this.params, ev, z, this.model, read as Record<string, number>);
    const label = r.label === 'YES' ? '[Label: Yes]' : r.label === 'NO' ? '[Label: No]' : '[Label: Undetermined]';
    return {
      label: r.label,
      reply: `[reader judge: rules + ${this.reader.id}, no LLM] ${r.explanation} ${label}`,
      attempts: 1,
      latencyMs: performance.now() - t0,
      signals: { ...r.signals, score: r.score },
      spans: r.spans,
    };
  }
}
