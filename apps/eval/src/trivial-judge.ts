import { containsAnswer } from '@forensics/algorithms';
import type { Judge, JudgeRequest, JudgeVerdict } from '@forensics/core';

/**
 * The trivial baseline judge (TKM-like, RAGForensics, arXiv 2504.21668, §5.1.3): YES iff the text
 * contains the wrong answer string (normalised, token-boundary match; see `containsAnswer`). The
 * data README's reference numbers use this judge with BM25 retrieval and K = 5.
 */
export class TrivialAnswerJudge implements Judge {
  readonly kind = 'trivial';
  readonly model = 'contains-wrong-answer-v1';
  readonly promptVersion = 'none';

  async judge(req: JudgeRequest): Promise<JudgeVerdict> {
    const yes = containsAnswer(req.text, req.wrongAnswer);
    return {
      label: yes ? 'YES' : 'NO',
      reply: yes ? `The text contains the wrong answer "${req.wrongAnswer}". [Label: Yes]` : `The text does not contain the wrong answer "${req.wrongAnswer}". [Label: No]`,
      attempts: 1,
      latencyMs: 0,
      signals: { containsWrongAnswer: yes },
    };
  }
}
