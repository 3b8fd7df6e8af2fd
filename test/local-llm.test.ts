/**
 * The local LLM endpoint (issue 60 item 1) on a real model: SmolLM2-135M-Instruct as `npm run models` installs it,
 * served by its own process (libs/infra/src/local-llm/local-llm.main.ts, started as the embedded mode starts it),
 * read by the real `openai` client and by the service's own OpenAiJudge and OpenAiGenerator. The model is too small
 * to judge well, so the assertions are on the mechanics: the reply parses, the usage and finish reason are the
 * model's, the errors map to the adapters' error types. No special jest environment: node-llama-cpp runs in the
 * child process, never inside jest's module system (it is ESM with top-level await). In CI (`.ci/run` runs
 * `npm run models`) a missing model fails the test; elsewhere it is skipped with a line saying how to get it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { NotFoundError, BadRequestError, InternalServerError } from 'openai';
import { JudgeError, GeneratorError } from '@forensics/core';
import { LOCAL_LLM_FILE, modelsDirOf } from '@forensics/infra/config/app-config';
import { OpenAiJudge } from '@forensics/infra/judges/openai-judge.adapter';
import { OpenAiGenerator } from '@forensics/infra/generators/openai-generator.adapter';
import { LOCAL_LLM_DEFAULTS, type LocalLlmParams } from '@forensics/infra/local-llm/local-llm.params';
import { startEmbeddedLocalLlm } from '@forensics/infra/runtime/embedded-local-llm';
import type { EmbeddedService } from '@forensics/infra/runtime/embedded-services';
import { ROOT } from './support/test-runtime';

const MODEL = 'smollm2-135m';
const modelPath = join(modelsDirOf(process.env.MODELS_DIR), MODEL, LOCAL_LLM_FILE);
const present = existsSync(modelPath);
if (!present && process.env.CI) throw new Error(`${modelPath} is missing: .ci/run must run \`npm run models\` first`);
if (!present) console.warn(`[local-llm.test] ${modelPath} is missing: run \`npm run models\` to test the local LLM on a real model; skipped`);
const maybe = present ? describe : describe.skip;

// Replies cut at 48 tokens (the adapters send no max_tokens): the tiny model rambles, and 2 loaded cores are slow.
const params = (over: Partial<LocalLlmParams> = {}): LocalLlmParams => ({ ...LOCAL_LLM_DEFAULTS, model: MODEL, modelPath, threads: 2, contextSize: 2048, defaultMaxTokens: 48, ...over });

maybe('the local LLM endpoint (SmolLM2-135M)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'local-llm-'));
  let llm: EmbeddedService;
  let client: OpenAI;
  beforeAll(async () => {
    llm = await startEmbeddedLocalLlm(dataDir, params(), ROOT);
    client = new OpenAI({ baseURL: llm.url, apiKey: 'not-needed', maxRetries: 0, timeout: 60_000 });
  });
  afterAll(async () => {
    await llm?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a chat completion that the openai client parses, with the usage and finish reason of what it generated', async () => {
    const c = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'What is the capital of France? Answer in one word.' }], temperature: 0, max_tokens: 32 });
    expect(c.object).toBe('chat.completion');
    expect(c.model).toBe(MODEL);
    expect(c.choices).toHaveLength(1);
    expect(c.choices[0].message.role).toBe('assistant');
    expect(typeof c.choices[0].message.content).toBe('string');
    expect(c.choices[0].message.content!.trim().length).toBeGreaterThan(0);
    expect(c.choices[0].finish_reason).toBe('stop');
    expect(c.usage!.prompt_tokens).toBeGreaterThan(10);
    expect(c.usage!.completion_tokens).toBeGreaterThan(0);
    expect(c.usage!.total_tokens).toBe(c.usage!.prompt_tokens + c.usage!.completion_tokens);
    // Greedy decoding: the same request gives the same reply (the repeatable verdicts temperature 0 is for).
    const again = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'What is the capital of France? Answer in one word.' }], temperature: 0, max_tokens: 32 });
    expect(again.choices[0].message.content).toBe(c.choices[0].message.content);
  });

  it('stops at max_tokens with finish_reason length', async () => {
    const c = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Write a long story about a dragon.' }], temperature: 0, max_tokens: 3 });
    expect(c.choices[0].finish_reason).toBe('length');
    expect(c.usage!.completion_tokens).toBe(3);
  });

  it('serves concurrent requests one after another, each answered (the worker\'s JUDGE_CONCURRENCY)', async () => {
    const asks = ['Name a colour.', 'Name a fruit.', 'Name an animal.', 'Name a country.'];
    const replies = await Promise.all(asks.map((q) => client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: q }], temperature: 0, max_tokens: 8 })));
    expect(replies.map((r) => r.choices[0].message.content!.length > 0)).toEqual([true, true, true, true]);
  });

  it('refuses what the subset does not offer with OpenAI\'s errors: another model (404), streaming (400)', async () => {
    const err = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).code).toBe('model_not_found');
    await expect(client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true })).rejects.toBeInstanceOf(BadRequestError);
    expect((await client.models.list()).data.map((m) => m.id)).toEqual([MODEL]);
  });

  it("the service's OpenAiJudge gets a verdict from it (a label or UNDETERMINED after its re-asks, never an error)", async () => {
    const judge = new OpenAiJudge({ baseURL: llm.url, apiKey: 'not-needed', model: MODEL, maxReasks: 1, prompt: 'rf-v1' });
    const v = await judge.judge({ query: 'what is the capital of australia', wrongAnswer: 'Sydney', text: 'The capital of Australia is Sydney, chosen in 1901.' });
    expect(['YES', 'NO', 'UNDETERMINED']).toContain(v.label);
    expect(v.attempts).toBeGreaterThanOrEqual(1);
    expect(v.attempts).toBeLessThanOrEqual(2);
    expect(v.reply.length).toBeGreaterThan(0);
    expect((v.signals as { promptTokens: number }).promptTokens).toBeGreaterThan(50);
  });

  it('the adapters map its errors: a wrong model name is permanent, a client-side timeout transient', async () => {
    const wrong = new OpenAiJudge({ baseURL: llm.url, apiKey: 'not-needed', model: 'gpt-4o-mini', maxRetries: 0 });
    const e1 = await wrong.judge({ query: 'q', wrongAnswer: 'a', text: 't' }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(JudgeError);
    expect((e1 as JudgeError).transient).toBe(false);
    expect((e1 as JudgeError).message).toContain('HTTP 404');
    // 100 ms cannot hold a generation of the generator's prompt on this machine: the client gives up, the server stops generating.
    const hasty = new OpenAiGenerator({ baseURL: llm.url, apiKey: 'not-needed', model: MODEL, timeoutMs: 100, maxRetries: 0 });
    const e2 = await hasty.benignText({ query: 'what is the capital of australia', correctAnswer: 'Canberra' }).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(GeneratorError);
    expect((e2 as GeneratorError).transient).toBe(true);
    // The endpoint is still serving afterwards.
    const c = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Say hi.' }], temperature: 0, max_tokens: 4 });
    expect(c.choices[0].message.content!.length).toBeGreaterThan(0);
  });

  it('a request past LOCAL_LLM_TIMEOUT_MS, queue wait included, is a 504 the judge calls transient', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'local-llm-tight-'));
    const tight = await startEmbeddedLocalLlm(dir, params({ requestTimeoutMs: 300 }), ROOT);
    try {
      const c = new OpenAI({ baseURL: tight.url, apiKey: 'not-needed', maxRetries: 0 });
      const err = await c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Write a long story about a dragon.' }], temperature: 0, max_tokens: 2000 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InternalServerError);
      expect((err as InternalServerError).status).toBe(504);
      // A judge request queued behind a long generation: its budget runs out in the queue, deterministically.
      const long = c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Write a long story about a dragon.' }], temperature: 0, max_tokens: 2000 }).catch((x: unknown) => x);
      const judge = new OpenAiJudge({ baseURL: tight.url, apiKey: 'not-needed', model: MODEL, maxRetries: 0 });
      const e = await judge.judge({ query: 'q', wrongAnswer: 'a', text: 't' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(JudgeError);
      expect((e as JudgeError).transient).toBe(true);
      expect((e as JudgeError).message).toContain('HTTP 504');
      expect(((await long) as InternalServerError).status).toBe(504);
    } finally {
      await tight.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a second process of the installation reuses the running model when its settings are the same', async () => {
    const reuse = await startEmbeddedLocalLlm(dataDir, params(), ROOT);
    expect(reuse.owned).toBe(false);
    expect(reuse.url).toBe(llm.url);
  });
});
