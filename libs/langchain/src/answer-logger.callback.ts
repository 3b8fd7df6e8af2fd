import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { DocumentInterface } from '@langchain/core/documents';
import type { BaseMessage } from '@langchain/core/messages';
import type { ChainValues } from '@langchain/core/utils/types';
import type { ForensicsClient, LoggedAnswer } from '@forensics/client';
import { FORENSICS_ID } from './forensics-retriever';

export interface LoggedRagAnswer extends LoggedAnswer {
  query: string;
  answer: string;
  /** The service ids logged as served: the retrieved texts that reached the model's prompt. */
  servedIds: string[];
  /** Their texts, as the app's store holds them (same order). */
  servedTexts: string[];
}

export interface ForensicsAnswerLoggerInput {
  client: ForensicsClient;
  collection: string;
  /** The question from the chain's input; default: a string input, else `question` / `query` / `input`. */
  queryOf?: (input: ChainValues | string) => string | undefined;
  /** The answer from the chain's output; default: a string, a message's text, else `answer` / `text` / `output`. */
  answerOf?: (output: unknown) => string | undefined;
  /** The service id of a retrieved document; default `metadata.forensicsId` (set by ForensicsRetriever). */
  idOf?: (doc: DocumentInterface) => string | undefined;
  /** Called with each logged answer (hand `feedbackToken` to the page for the widget). */
  onLogged?: (answer: LoggedRagAnswer, runId: string) => void;
}

interface RootRun { input: unknown; docs: DocumentInterface[]; prompts: string[] }

const pick = (v: unknown, keys: string[]): string | undefined => {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') for (const k of keys) { const x = (v as Record<string, unknown>)[k]; if (typeof x === 'string') return x; }
  return undefined;
};
const messageText = (m: BaseMessage): string => (typeof m.content === 'string' ? m.content : m.content.map((p) => ('text' in p && typeof p.text === 'string' ? p.text : '')).join(''));

/**
 * Logs every RAG answer a chain gives (`POST /v1/answers`) with the service ids of the documents
 * actually passed to the model: the documents the outermost retriever of the run returned whose
 * text appears in a prompt the model received (all of them when no model call was seen). The
 * answer id and feedback token come back through `onLogged`, `answerFor(runId)` and `last()`.
 * Pass it per call: `chain.invoke(question, { callbacks: [logger] })`.
 */
export class ForensicsAnswerLogger extends BaseCallbackHandler {
  name = 'forensics-answer-logger';
  override awaitHandlers = true;
  private readonly parents = new Map<string, string | undefined>();
  private readonly retrieverRuns = new Set<string>();
  private readonly roots = new Map<string, RootRun>();
  private readonly logged = new Map<string, Promise<LoggedRagAnswer | null>>();
  private lastRun: string | null = null;

  constructor(private readonly fields: ForensicsAnswerLoggerInput) {
    super();
  }

  /** The logged answer of a run (null when it had no served text the service knows), once logged. */
  answerFor(runId: string): Promise<LoggedRagAnswer | null> | undefined {
    return this.logged.get(runId);
  }

  /** The most recent run's logged answer. */
  async last(): Promise<LoggedRagAnswer | null> {
    return this.lastRun ? (this.logged.get(this.lastRun) ?? null) : null;
  }

  private rootOf(runId: string): string {
    let id = runId;
    for (let p = this.parents.get(id); p !== undefined; p = this.parents.get(id)) id = p;
    return id;
  }

  // @langchain/core's callback manager passes the parent run's id 4th (its .d.ts names that parameter runType).
  override handleChainStart(_chain: unknown, inputs: ChainValues, runId: string, parentRunId?: string): void {
    this.parents.set(runId, parentRunId);
    if (parentRunId === undefined) this.roots.set(runId, { input: inputs, docs: [], prompts: [] });
  }

  override handleRetrieverStart(_retriever: unknown, _query: string, runId: string, parentRunId?: string): void {
    this.parents.set(runId, parentRunId);
    this.retrieverRuns.add(runId);
  }

  override handleRetrieverEnd(documents: DocumentInterface[], runId: string, parentRunId?: string): void {
    // A retriever inside another (ForensicsRetriever's inner one) returned texts the outer one may have dropped.
    if (parentRunId !== undefined && this.retrieverRuns.has(parentRunId)) return;
    this.roots.get(this.rootOf(runId))?.docs.push(...documents);
  }

  override handleChatModelStart(_llm: unknown, messages: BaseMessage[][], runId: string, parentRunId?: string): void {
    this.parents.set(runId, parentRunId);
    this.roots.get(this.rootOf(runId))?.prompts.push(...messages.flat().map(messageText));
  }

  override handleLLMStart(_llm: unknown, prompts: string[], runId: string, parentRunId?: string): void {
    this.parents.set(runId, parentRunId);
    this.roots.get(this.rootOf(runId))?.prompts.push(...prompts);
  }

  override async handleChainEnd(outputs: ChainValues, runId: string, parentRunId?: string): Promise<void> {
    if (parentRunId !== undefined) return;
    const run = this.roots.get(runId);
    this.roots.delete(runId);
    if (!run) return;
    this.lastRun = runId;
    const done = this.log(run, outputs, runId);
    this.logged.set(runId, done);
    await done;
  }

  private async log(run: RootRun, outputs: unknown, runId: string): Promise<LoggedRagAnswer | null> {
    const query = (this.fields.queryOf ?? ((i) => pick(i, ['question', 'query', 'input'])))(run.input as ChainValues);
    const answer = (this.fields.answerOf ?? defaultAnswerOf)(outputs);
    const idOf = this.fields.idOf ?? ((d: DocumentInterface) => (typeof d.metadata?.[FORENSICS_ID] === 'string' ? (d.metadata[FORENSICS_ID] as string) : undefined));
    const passed = run.prompts.length ? run.docs.filter((d) => run.prompts.some((p) => p.includes(d.pageContent))) : run.docs;
    const served = new Map<string, string>();
    for (const d of passed) { const id = idOf(d); if (id && !served.has(id)) served.set(id, d.pageContent); }
    const servedIds = [...served.keys()];
    if (!query || !answer || !servedIds.length) return null;
    const r = await this.fields.client.logAnswer({ collection: this.fields.collection, query, answer, servedIds });
    const out: LoggedRagAnswer = { ...r, query, answer, servedIds, servedTexts: [...served.values()] };
    this.fields.onLogged?.(out, runId);
    return out;
  }
}

function defaultAnswerOf(output: unknown): string | undefined {
  if (typeof output === 'string') return output;
  if (output && typeof output === 'object') {
    const o = output as Record<string, unknown>;
    if (typeof o.content === 'string') return o.content;
    // A runnable's plain output arrives as { output: value }.
    return pick(o, ['answer', 'text', 'output']) ?? (o.output && typeof o.output === 'object' ? defaultAnswerOf(o.output) : undefined);
  }
  return undefined;
}
