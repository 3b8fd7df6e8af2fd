import type { Judge, JudgeRequest, JudgeVerdict } from '@forensics/core';
import type { ForensicsMetrics } from './metrics';

/**
 * Decorator around the Judge port: counts every call by judge kind, label and outcome and times
 * it. Bound in InfrastructureModule around whichever adapter the configuration picks, so core
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
      return verdict;
    } catch (e) {
      stop({ outcome: 'error' });
      this.metrics.judgeCalls.inc({ judge: this.inner.kind, label: 'none', outcome: 'error' });
      throw e;
    }
  }
}
