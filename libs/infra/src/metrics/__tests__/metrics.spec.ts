import type { Judge, JudgeRequest, JudgeVerdict } from '@forensics/core';
import { observeJobTiming } from '../collectors';
import { MeteredJudge } from '../metered-judge';
import { ForensicsMetrics } from '../metrics';

describe('queue timing', () => {
  it('observes wait from when the job became ready (timestamp + delay) and processing until it finished', async () => {
    const m = new ForensicsMetrics({ defaultMetrics: false });
    observeJobTiming(m, 'traceback', 'completed', { timestamp: 1_000, delay: 500, processedOn: 4_000, finishedOn: 10_000 });
    const wait = (await m.queueWait.get()).values;
    const run = (await m.queueProcessing.get()).values;
    expect(wait.find((v) => v.metricName === 'forensics_queue_wait_seconds_sum')?.value).toBe(2.5);
    expect(wait.find((v) => v.metricName === 'forensics_queue_wait_seconds_count')?.labels).toEqual({ queue: 'traceback', outcome: 'completed' });
    expect(run.find((v) => v.metricName === 'forensics_queue_processing_seconds_sum')?.value).toBe(6);
  });

  it('a job that never started is not timed; an unfinished failed attempt is timed until now', async () => {
    const m = new ForensicsMetrics({ defaultMetrics: false });
    observeJobTiming(m, 'webhooks', 'failed', { timestamp: 1_000, delay: 0, processedOn: undefined, finishedOn: undefined });
    expect((await m.queueWait.get()).values.filter((v) => v.metricName === 'forensics_queue_wait_seconds_count')).toEqual([]);
    observeJobTiming(m, 'webhooks', 'failed', { timestamp: 1_000, delay: 0, processedOn: 2_000, finishedOn: undefined }, 3_500);
    expect((await m.queueProcessing.get()).values.find((v) => v.metricName === 'forensics_queue_processing_seconds_sum')?.value).toBe(1.5);
  });
});

describe('MeteredJudge tokens', () => {
  const judgeWith = (verdict: Partial<JudgeVerdict>, kind = 'openai'): Judge => ({
    kind, model: 'm', promptVersion: 'v',
    judge: async (_r: JudgeRequest) => ({ label: 'NO', reply: 'r', attempts: 1, latencyMs: 1, ...verdict } as JudgeVerdict),
  });
  const request = { query: 'q', text: 't', wrongAnswer: 'w' } as JudgeRequest;

  it('adds the prompt and completion tokens the API reported', async () => {
    const m = new ForensicsMetrics({ defaultMetrics: false });
    const j = new MeteredJudge(judgeWith({ signals: { promptTokens: 120, completionTokens: 7 } }), m);
    await j.judge(request);
    await j.judge(request);
    const v = (await m.judgeTokens.get()).values;
    expect(v.find((x) => x.labels.type === 'prompt')).toMatchObject({ value: 240, labels: { judge: 'openai' } });
    expect(v.find((x) => x.labels.type === 'completion')?.value).toBe(14);
  });

  it('adds nothing for a judge that reports no usage (offline)', async () => {
    const m = new ForensicsMetrics({ defaultMetrics: false });
    await new MeteredJudge(judgeWith({ signals: { answerSupport: 0.2 } }, 'offline'), m).judge(request);
    expect((await m.judgeTokens.get()).values).toEqual([]);
    expect((await m.judgeCalls.get()).values[0]).toMatchObject({ value: 1, labels: { judge: 'offline', label: 'NO', outcome: 'ok' } });
  });
});
