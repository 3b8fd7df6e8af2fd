import type { MessageContent } from '@llamaindex/core/llms';
import type { BaseNode, EngineResponse, NodeWithScore } from '@llamaindex/core/schema';
import { ServingStatusCache, type ForensicsClient, type LoggedAnswer } from '@forensics/client';
import { nodeText } from './forensics-node-postprocessor';

export interface LoggedLlamaAnswer extends LoggedAnswer {
  query: string;
  answer: string;
  /** The service ids logged as served: the known texts of the nodes the synthesizer was given. */
  servedIds: string[];
  /** Their texts, as the app's index holds them (same order). */
  servedTexts: string[];
}

export interface ForensicsAnswerLoggerInput {
  client: Pick<ForensicsClient, 'servingStatus' | 'logAnswer'>;
  collection: string;
  /** The postprocessor's cache (`postprocessor.cache`): the ids of the nodes it let through are then known without a lookup. */
  cache?: ServingStatusCache;
  /** The text the service ingested for a node; default the node's content without metadata. */
  textOf?: (node: BaseNode) => string;
}

/** The plain text of a query or a message (text parts joined). */
export function textOfContent(content: MessageContent | { query: MessageContent }): string {
  const c = typeof content === 'object' && 'query' in content ? content.query : content;
  return typeof c === 'string' ? c : c.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

/**
 * Logs a LlamaIndex.TS RAG answer with the forensics service (`POST /v1/answers`): the query, the
 * answer and the service ids of the nodes the response synthesizer was given (`response.sourceNodes`:
 * in a RetrieverQueryEngine, the retrieved nodes after every postprocessor). Ids are found by text
 * through the shared serving-status cache (one lookup for texts not cached). Returns the answer id
 * and the feedback token for the page's widget, or null when no served text is known to the service.
 */
export class ForensicsAnswerLogger {
  private readonly cache: ServingStatusCache;
  private readonly textOf: (node: BaseNode) => string;
  private lastLogged: LoggedLlamaAnswer | null = null;

  constructor(private readonly fields: ForensicsAnswerLoggerInput) {
    this.cache = fields.cache ?? new ServingStatusCache({ client: fields.client, collection: fields.collection });
    this.textOf = fields.textOf ?? nodeText;
  }

  /** After `const response = await engine.query({ query })`: `logResponse(query, response)`. */
  logResponse(query: MessageContent | { query: MessageContent }, response: EngineResponse): Promise<LoggedLlamaAnswer | null> {
    return this.log({ query, answer: textOfContent(response.message.content), nodes: response.sourceNodes ?? [] });
  }

  /** The same for a streamed answer: the collected text and the stream's `sourceNodes`. */
  async log(input: { query: MessageContent | { query: MessageContent }; answer: string; nodes: NodeWithScore[] }): Promise<LoggedLlamaAnswer | null> {
    const query = textOfContent(input.query);
    const texts = [...new Set(input.nodes.map((n) => this.textOf(n.node)))];
    if (!query || !input.answer || !texts.length) return null;
    const statuses = await this.cache.lookup(texts);
    const served = new Map<string, string>();
    statuses.forEach((s, i) => { if (s.known && s.id && !served.has(s.id)) served.set(s.id, texts[i]!); });
    if (!served.size) return null;
    const servedIds = [...served.keys()];
    const r = await this.fields.client.logAnswer({ collection: this.fields.collection, query, answer: input.answer, servedIds });
    this.lastLogged = { ...r, query, answer: input.answer, servedIds, servedTexts: [...served.values()] };
    return this.lastLogged;
  }

  /** The most recent logged answer. */
  last(): LoggedLlamaAnswer | null {
    return this.lastLogged;
  }
}
