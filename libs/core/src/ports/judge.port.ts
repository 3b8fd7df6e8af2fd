/**
 * Judge port: does a context text try to induce the wrong answer the user saw?
 * (RAGForensics, arXiv 2504.21668, §4, Algorithm 1, line "judge(q, C_j, t)").
 *
 * A judge never defaults to benign: a reply without a usable label is UNDETERMINED.
 */
import type { Label } from '@forensics/algorithms';
import type { ClaimSpan, JudgeSignals } from './repositories/records';

/** YES: the text tries to induce the wrong answer; NO: it does not; UNDETERMINED: no usable label. */
export type VerdictLabel = Label;

export interface JudgeRequest {
  query: string;
  /** The wrong output t the user actually saw. */
  wrongAnswer: string;
  /** The candidate text C_j (untrusted data). */
  text: string;
  /** Other candidate texts of the same event (the offline judge uses them for agreement signals). */
  peers?: readonly string[];
  /**
   * The texts the event's user was served (its first round): where a served answer sentence was quoted from. The
   * offline judge reads a quoted answer against these alone, so every text of the event — a later round's, an audit's
   * — reads the answer as the first round did (`peers` are only the texts judged beside it). Defaults to the text
   * and its peers.
   */
  context?: readonly string[];
  /** Aborted: the run that asked stops (the worker's drain timeout, a lost job lock); a judge that calls out cancels the call. */
  signal?: AbortSignal;
}

export interface JudgeVerdict {
  label: VerdictLabel;
  /** The judge's full reply (LLM text, or the offline judge's explanation in words). */
  reply: string;
  /** How many requests this verdict took (re-asks after an unlabelled reply count). */
  attempts: number;
  latencyMs: number;
  /** Machine-readable signals behind the verdict (offline judge), stored as JSON. */
  signals?: JudgeSignals;
  /**
   * Where the claim is in the judged text (issue 35): [start, end) character offsets into `request.text`
   * of the sentence(s) the verdict rests on — the offline judge's evidence sentences, the LLM judge's
   * quotes located in the text. Absent or empty when the judge gave none or a quote was not found.
   */
  spans?: ClaimSpan[];
}

export interface Judge {
  /** 'openai' | 'offline' | 'llama' | … — recorded with every verdict. */
  readonly kind: string;
  /** Model name (e.g. 'offline-evidence-v2' for the offline judge). */
  readonly model: string;
  /** Prompt version, e.g. 'rf-v1' (the paper's prompt verbatim). */
  readonly promptVersion: string;
  judge(request: JudgeRequest): Promise<JudgeVerdict>;
}

/** Thrown by adapters. `transient` failures (timeouts, 429, 5xx) are retried by the queue. */
export class JudgeError extends Error {
  constructor(message: string, readonly transient: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JudgeError';
  }
}
