/**
 * The local LLM's own process (run by ../runtime/embedded-local-llm.ts as `node --import tsx local-llm.main.ts`):
 * loads the GGUF once, serves the chat-completions subset on a loopback port, and prints one JSON line on stdout when
 * ready (`{"ready":true,"url":…,"port":…,"loadMs":…}`) or failed (`{"ready":false,"error":…}`). Its own process:
 * llama.cpp's threads and memory stay out of the worker's event loop, a native crash takes only this process, and the
 * API, the worker and the CLI of one installation share one loaded model (the run record).
 *
 * Argument: the LocalLlmParams as JSON, plus `port` (0 = a free one). Stops on SIGTERM/SIGINT, and when its parent dies.
 */
import { startChatCompletionsServer } from './chat-completions-server';
import { LlamaChatEngine } from './llama-chat-engine';
import { validateLocalLlmParams, type LocalLlmParams } from './local-llm.params';
import { onParentGone } from '../runtime/parent-watch';

async function main(): Promise<void> {
  const { port, ...params } = JSON.parse(process.argv[2] ?? '{}') as LocalLlmParams & { port?: number };
  validateLocalLlmParams(params);
  const parent = process.ppid;
  const t0 = performance.now();
  const engine = await LlamaChatEngine.load(params);
  const server = await startChatCompletionsServer(engine, params, { port: port ?? 0 });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close().catch(() => undefined);
    await engine.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  onParentGone(parent, () => void stop());
  process.stdout.write(`${JSON.stringify({ ready: true, url: server.url, port: server.port, model: params.model, loadMs: Math.round(performance.now() - t0) })}\n`);
}

main().catch((e: unknown) => {
  process.stdout.write(`${JSON.stringify({ ready: false, error: e instanceof Error ? e.message : String(e) })}\n`);
  process.exit(1);
});
