/**
 * The local LLM as the RAGForensics judge (issue 60): the endpoint started as the embedded mode starts it
 * (LOCAL_LLM), judged through the service's own OpenAiJudge with the paper's prompt (rf-v1), one request at a time, on
 * the first questions of ../shared/data/poisonedrag_nq.jsonl — each question's first planted texts (the truth: YES)
 * and first clean texts (NO). Per text: the judge's whole verdict (its reply as the model writes it, re-asks included)
 * and a 1-token completion of the same prompt (max_tokens 1: the prompt's evaluation and the first token, the floor of
 * a YES/NO judgment and what "first token" costs without streaming). The verdict runs after the 1-token request of the
 * same prompt, whose evaluation it reuses from the KV cache: verdictMs is mostly the reply's generation, and a cold
 * verdict costs about oneTokenMs + verdictMs. Prints one JSON line with cores and load.
 *   npm run -s bench:local-llm -- [model=smollm2-135m] [questions=3] [texts=2] [threads=0]
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { LOCAL_LLM_FILE, modelsDirOf } from '../libs/infra/src/config/app-config';
import { OpenAiJudge } from '../libs/infra/src/judges/openai-judge.adapter';
import { renderRf, RF_V1 } from '../libs/infra/src/judges/rf-prompts';
import { LOCAL_LLM_DEFAULTS } from '../libs/infra/src/local-llm/local-llm.params';
import { startEmbeddedLocalLlm } from '../libs/infra/src/runtime/embedded-local-llm';

const DATA = join(__dirname, '..', '..', 'shared', 'data', 'poisonedrag_nq.jsonl');
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]) : null; };

async function main(): Promise<void> {
  const model = process.argv[2] ?? 'smollm2-135m';
  const nq = Number(process.argv[3] ?? 3);
  const per = Number(process.argv[4] ?? 2);
  const threads = Number(process.argv[5] ?? 0);
  const records = readFileSync(DATA, 'utf8').split('\n').filter(Boolean).slice(0, nq).map((l) => JSON.parse(l) as { question: string; incorrect_answer: string; clean_texts: string[]; poisoned_texts: string[] });
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-local-llm-'));
  const load0 = loadavg()[0];
  const t0 = performance.now();
  const llm = await startEmbeddedLocalLlm(dataDir, { ...LOCAL_LLM_DEFAULTS, model, modelPath: join(modelsDirOf(process.env.MODELS_DIR), model, LOCAL_LLM_FILE), threads, contextSize: 4096, requestTimeoutMs: 600_000 }, join(__dirname, '..'));
  const startMs = Math.round(performance.now() - t0);
  try {
    const judge = new OpenAiJudge({ baseURL: llm.url, apiKey: 'not-needed', model, prompt: RF_V1, timeoutMs: 600_000, maxRetries: 0 });
    const client = new OpenAI({ baseURL: llm.url, apiKey: 'not-needed', maxRetries: 0, timeout: 600_000 });
    const verdictMs: number[] = [];
    const oneTokenMs: number[] = [];
    const promptTokens: number[] = [];
    let attempts = 0, undetermined = 0, right = 0, n = 0, replyChars = 0;
    const samples: { truth: string; label: string; reply: string }[] = [];
    for (const r of records) {
      const cases = [...r.poisoned_texts.slice(0, per).map((text) => ({ text, truth: 'YES' })), ...r.clean_texts.slice(0, per).map((text) => ({ text, truth: 'NO' }))];
      for (const c of cases) {
        const prompt = renderRf(RF_V1, { query: r.question, text: c.text, wrongAnswer: r.incorrect_answer });
        let s = performance.now();
        const one = await client.chat.completions.create({ model, messages: [{ role: 'user', content: prompt }], temperature: 0, max_tokens: 1 });
        oneTokenMs.push(performance.now() - s);
        promptTokens.push(one.usage!.prompt_tokens);
        s = performance.now();
        const v = await judge.judge({ query: r.question, text: c.text, wrongAnswer: r.incorrect_answer });
        verdictMs.push(performance.now() - s);
        n++; attempts += v.attempts; replyChars += v.reply.length;
        if (v.label === 'UNDETERMINED') undetermined++;
        if (v.label === c.truth) right++;
        process.stderr.write(`text ${n}: 1-token ${Math.round(oneTokenMs[n - 1])} ms (${promptTokens[n - 1]} prompt tokens), verdict ${Math.round(verdictMs[n - 1])} ms, ${v.attempts} attempt(s), ${v.label} (truth ${c.truth}), load ${loadavg()[0].toFixed(2)}\n`);
        if (samples.length < 4) samples.push({ truth: c.truth, label: v.label, reply: v.reply.slice(0, 160) });
      }
    }
    console.log(JSON.stringify({
      bench: 'local-llm-judge', model, prompt: RF_V1, threads: threads || 'auto', cores: cpus().length, loadavg1: { before: +load0.toFixed(2), after: +loadavg()[0].toFixed(2) },
      startMs, texts: n, questions: records.length,
      oneTokenMs: { p50: pct(oneTokenMs, 0.5), p95: pct(oneTokenMs, 0.95) }, promptTokens: { p50: pct(promptTokens, 0.5), max: Math.max(...promptTokens) },
      verdictMs: { p50: pct(verdictMs, 0.5), p95: pct(verdictMs, 0.95) }, attemptsPerText: +(attempts / n).toFixed(2), meanReplyChars: Math.round(replyChars / n),
      undetermined, agreeWithTruth: `${right}/${n}`, samples,
    }));
  } finally {
    await llm.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
