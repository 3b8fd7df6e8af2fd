import type { Judge, JudgeRequest, JudgeVerdict } from '@forensics/core';
import type { ForensicsMetrics } from './metrics';

/**
 * Decorator around the Judge port: counts every call by judge kind, label and outcome, times it
 * and adds the tokens the API reported. Bound in InfrastructureModule around whichever adapter the configuration picks, so core
 * stays free of metrics code.
 */
export class MeteredJudge implements Judge {
  constructor(private readonly inner: Judge, private readonly metrics: ForensicsMetrics) {}

  get kind(): string { return this.inner.kind; }
  get model(): string { return this.inner.model; }
  get promptVersion(): string { return this.inner.promptVersion; }

  async judge(request: JudgeRequest): Promise<JudgeVerdict> {
    const stop = this.metrics.judgeDuration.startTimer({ judge: this.inner.kind });
    try {
      const verdict = await this.inner.judge(request);
      stop({ outcome: 'ok' });
      this.metrics.judgeCalls.inc({ judge: this.inner.kind, label: verdict.label, outcome: 'ok' });
      // Token usage, where the API reported it (the OpenAI adapter sums `usage` over its re-asks into the signals).
      const prompt = verdict.signals?.promptTokens;
      const completion = verdict.signals?.completionTokens;
      if (typeof prompt === 'number' && prompt >= 0) this.metrics.judgeTokens.inc({ judge: this.inner.kind, type: 'prompt' }, prompt);
      if (typeof completion === 'number' && completion >= 0) this.metrics.judgeTokens.inc({ judge: this.inner.kind, type: 'completion' }, completion);
      return verdict;
    } catch (e) {
      stop({ outcome: 'error' });
      this.metrics.judgeCalls.inc({ judge: this.inner.kind, label: 'none', outcome: 'error' });
      throw e;
    }
  }
}
