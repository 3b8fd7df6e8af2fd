/**
 * One traceback through the service with the local LLM (issue 60 item 1): `LOCAL_LLM=smollm2-135m` and no
 * OPENAI_BASE_URL, so the embedded mode starts the model's endpoint and the service's own OpenAiJudge and
 * OpenAiGenerator talk to it — real Postgres, Redis, the embedded vector store and the worker. SmolLM2-135M judges
 * badly: the test asserts the mechanics (the event reaches a final state through the LLM path, every verdict is the
 * local model's with its reply stored, the RAG answer is the model's), not the verdicts. Skipped with a line when the
 * model is missing outside CI, failed in CI.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATOR, IngestCorpusUseCase, SubmitFeedbackUseCase, type Generator } from '@forensics/core';
import { LOCAL_LLM_FILE, modelsDirOf } from '@forensics/infra/config/app-config';
import { createTestApp, type TestApp } from './support/test-app';
import { eventually, uniqueName } from './support/test-runtime';

const MODEL = 'smollm2-135m';
const modelPath = join(modelsDirOf(process.env.MODELS_DIR), MODEL, LOCAL_LLM_FILE);
const present = existsSync(modelPath);
if (!present && process.env.CI) throw new Error(`${modelPath} is missing: .ci/run must run \`npm run models\` first`);
if (!present) console.warn(`[local-llm-traceback.test] ${modelPath} is missing: run \`npm run models\` to run a traceback on a real model; skipped`);
const maybe = present ? describe : describe.skip;

const TEXTS = [
  'The capital of Australia is Sydney, the largest city, chosen as capital in 1901.',
  'What is the capital of Australia? The capital of Australia is Sydney.',
  'Canberra is the capital city of Australia, founded in 1913 as a compromise between Sydney and Melbourne.',
  'Sydney is the most populous city in Australia and home to the Sydney Opera House.',
  'Melbourne is the capital of the Australian state of Victoria.',
  'The Australian Parliament House is located in Canberra.',
];

maybe('a traceback with the local LLM as judge and generator (SmolLM2-135M)', () => {
  let t: TestApp;
  const collection = uniqueName('local-llm');
  beforeAll(async () => {
    t = await createTestApp({
      worker: true,
      // No OPENAI_BASE_URL: LOCAL_LLM alone makes JUDGE and GENERATOR openai, against the embedded endpoint.
      env: { LOCAL_LLM: MODEL, LOCAL_LLM_THREADS: '2', LOCAL_LLM_CONTEXT: '2048', LOCAL_LLM_MAX_TOKENS: '16', JUDGE_PROMPT: 'rf-v1', TRACE_K: '2', TRACE_MAX_JUDGE_CALLS: '2', JUDGE_MAX_REASKS: '0', JUDGE_CONCURRENCY: '2', EVIDENCE: 'off' },
    });
    await t.get(IngestCorpusUseCase).execute({ collection, records: TEXTS.map((text, i) => ({ id: `t${i}`, text })) });
  });
  afterAll(async () => { await t?.close(); });

  it('configures the OpenAI adapters on the local model', () => {
    expect(t.config.judge).toMatchObject({ kind: 'openai', model: MODEL });
    expect(t.config.generator).toEqual({ kind: 'openai', model: MODEL });
    expect(t.config.openai.baseURL).toBeUndefined();
    expect(t.get<Generator>(GENERATOR).kind).toBe('openai');
  });

  it('traces an event to a final state, every verdict given by the local model through the OpenAI judge', async () => {
    const r = await t.get(SubmitFeedbackUseCase).execute({ collection, query: 'what is the capital of australia', wrongAnswer: 'Sydney' });
    const ev = await eventually(async () => {
      const e = await t.repos.feedback.get(r.event.id);
      return e && ['TRACED', 'BOUNDED', 'FAILED'].includes(e.status) ? e : null;
    }, 300_000);
    // FAILED would mean the path broke (a transport or mapping error), whatever the model says.
    expect(ev.failureReason ?? null).toBeNull();
    expect(['TRACED', 'BOUNDED']).toContain(ev.status);
    const verdicts = await t.repos.verdicts.list(r.event.id);
    expect(verdicts.length).toBeGreaterThan(0);
    expect(verdicts.length).toBeLessThanOrEqual(2);
    for (const v of verdicts) {
      expect(v.judgeKind).toBe('openai');
      expect(v.judgeModel).toBe(MODEL);
      expect(['YES', 'NO', 'UNDETERMINED']).toContain(v.label);
      expect(v.reply.length).toBeGreaterThan(0);
      expect(v.attempts).toBeGreaterThanOrEqual(1);
    }
  }, 360_000);

  it("the RAG answer is the local model's", async () => {
    const g = t.get<Generator>(GENERATOR);
    const a = await g.generate({ query: 'what is the capital of australia', contexts: [TEXTS[2], TEXTS[5]], enhanced: false });
    expect(a.answer.length).toBeGreaterThan(0);
    expect(a.promptVersion).toBe('rag-v1');
  });
});
