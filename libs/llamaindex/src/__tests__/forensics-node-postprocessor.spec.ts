import { BaseLLM, type ChatResponse, type ChatResponseChunk, type LLMChatParamsNonStreaming, type LLMChatParamsStreaming, type LLMMetadata } from '@llamaindex/core/llms';
import { RetrieverQueryEngine } from '@llamaindex/core/query-engine';
import { getResponseSynthesizer } from '@llamaindex/core/response-synthesizers';
import { BaseRetriever } from '@llamaindex/core/retriever';
import { TextNode, type NodeWithScore } from '@llamaindex/core/schema';
import type { ForensicsClient, LogAnswerRequest, ServingStatus } from '@forensics/client';
import { ForensicsAnswerLogger, ForensicsNodePostprocessor } from '..';

/** The two client calls the integration makes, over an in-memory set of withheld texts; records each call. */
function fakeClient(withheld: Set<string>, known = (t: string) => t !== 'unknown') {
  const batches: string[][] = [];
  const logged: LogAnswerRequest[] = [];
  const client = {
    async servingStatus(collection: string, lookup: { texts?: string[] }): Promise<ServingStatus> {
      batches.push(lookup.texts ?? []);
      const texts = (lookup.texts ?? []).map((t) => ({ id: `id:${t}`, known: known(t), status: withheld.has(t) ? ('QUARANTINED' as const) : ('ACTIVE' as const), withheld: withheld.has(t) }));
      return { collection, ids: [], texts };
    },
    async logAnswer(req: LogAnswerRequest) {
      logged.push(req);
      return { answerId: `a${logged.length}`, feedbackToken: `tok${logged.length}` };
    },
  };
  return { client: client as unknown as Pick<ForensicsClient, 'servingStatus' | 'logAnswer'>, batches, logged };
}

/** An app's index stand-in: returns its nodes in order, with a metadata field the synthesizer would print. */
class ListRetriever extends BaseRetriever {
  constructor(private readonly texts: string[]) { super(); }
  async _retrieve(): Promise<NodeWithScore[]> {
    return this.texts.map((text, i) => ({ node: new TextNode({ text, metadata: { source: `file${i}.md` } }), score: 1 - i / 10 }));
  }
}

/** An LLM stand-in that always gives the same answer. (@llamaindex/core's MockLLM sits at a subpath with no package.json, which this repo's `moduleResolution: node` cannot type.) */
class FixedLLM extends BaseLLM {
  metadata: LLMMetadata = { model: 'fixed', temperature: 0, topP: 1, contextWindow: 4096, tokenizer: undefined, structuredOutput: false };
  constructor(private readonly answer: string) { super(); }
  chat(params: LLMChatParamsStreaming): Promise<AsyncIterable<ChatResponseChunk>>;
  chat(params: LLMChatParamsNonStreaming): Promise<ChatResponse>;
  async chat(params: LLMChatParamsStreaming | LLMChatParamsNonStreaming): Promise<AsyncIterable<ChatResponseChunk> | ChatResponse> {
    const text = this.answer;
    if (params.stream) return (async function* () { yield { delta: text, raw: null }; })();
    return { message: { role: 'assistant', content: text }, raw: null };
  }
}

const engineWith = (texts: string[], post: ForensicsNodePostprocessor, answer = 'an answer') =>
  new RetrieverQueryEngine(new ListRetriever(texts), getResponseSynthesizer('compact', { llm: new FixedLLM(answer) }), [post]);

describe('ForensicsNodePostprocessor', () => {
  it('drops the nodes the service withholds, in one batched lookup by text (metadata not part of it), nodes unchanged', async () => {
    const { client, batches } = fakeClient(new Set(['beta']));
    const post = new ForensicsNodePostprocessor({ client, collection: 'c' });
    const nodes = await new ListRetriever(['alpha', 'beta', 'gamma'])._retrieve();
    const out = await post.postprocessNodes(nodes);
    expect(out.map((n) => n.node)).toEqual([nodes[0]!.node, nodes[2]!.node]);
    expect(out[1]!.node.metadata).toEqual({ source: 'file2.md' });
    expect(batches).toEqual([['alpha', 'beta', 'gamma']]);
    expect(await post.postprocessNodes([])).toEqual([]);
    expect(batches.length).toBe(1);
  });

  it('in a query engine the synthesizer never gets a withheld node', async () => {
    const { client } = fakeClient(new Set(['beta']));
    const response = await engineWith(['alpha', 'beta', 'gamma'], new ForensicsNodePostprocessor({ client, collection: 'c' })).query({ query: 'q' });
    expect(response.sourceNodes!.map((n) => (n.node as TextNode).text)).toEqual(['alpha', 'gamma']);
  });

  it('serves from the cache within the TTL; a webhook event clears it', async () => {
    const withheld = new Set<string>();
    const { client, batches } = fakeClient(withheld);
    const post = new ForensicsNodePostprocessor({ client, collection: 'c', ttlMs: 60_000 });
    const engine = engineWith(['alpha', 'beta'], post);
    expect((await engine.query({ query: 'q' })).sourceNodes!.length).toBe(2);
    withheld.add('alpha');
    expect((await engine.query({ query: 'q' })).sourceNodes!.length).toBe(2);
    expect(post.lookups).toBe(1);
    expect(post.handleWebhookEvent({ type: 'ping' })).toBe(false);
    expect(post.handleWebhookEvent({ type: 'quarantine.created' })).toBe(true);
    expect((await engine.query({ query: 'q' })).sourceNodes!.map((n) => (n.node as TextNode).text)).toEqual(['beta']);
    expect(batches.length).toBe(2);
  });

  it('passes nodes unfiltered when the service cannot be reached, or throws with onLookupError: closed', async () => {
    const down = { servingStatus: async () => { throw new Error('ECONNREFUSED'); } };
    const nodes = await new ListRetriever(['alpha', 'beta'])._retrieve();
    expect((await new ForensicsNodePostprocessor({ client: down, collection: 'c' }).postprocessNodes(nodes)).length).toBe(2);
    await expect(new ForensicsNodePostprocessor({ client: down, collection: 'c', onLookupError: 'closed' }).postprocessNodes(nodes)).rejects.toThrow('ECONNREFUSED');
  });
});

describe('ForensicsAnswerLogger', () => {
  it('logs the response with the ids of the nodes the synthesizer got, using the postprocessor cache (no second lookup)', async () => {
    const { client, batches, logged } = fakeClient(new Set(['beta']));
    const post = new ForensicsNodePostprocessor({ client, collection: 'c' });
    const logger = new ForensicsAnswerLogger({ client, collection: 'c', cache: post.cache });
    const response = await engineWith(['alpha', 'beta', 'gamma', 'unknown'], post, 'Herman Melville').query({ query: 'who wrote it' });
    const out = await logger.logResponse('who wrote it', response);
    expect(logged).toEqual([{ collection: 'c', query: 'who wrote it', answer: 'Herman Melville', servedIds: ['id:alpha', 'id:gamma'] }]);
    expect(out).toMatchObject({ answerId: 'a1', feedbackToken: 'tok1', servedTexts: ['alpha', 'gamma'] });
    expect(logger.last()).toBe(out);
    expect(batches.length).toBe(1);
  });

  it('looks ids up itself without a shared cache, and logs nothing when no served text is known', async () => {
    const { client, batches, logged } = fakeClient(new Set());
    const logger = new ForensicsAnswerLogger({ client, collection: 'c' });
    const nodes = await new ListRetriever(['alpha', 'alpha'])._retrieve();
    expect((await logger.log({ query: [{ type: 'text', text: 'q' }], answer: 'x', nodes }))!.servedIds).toEqual(['id:alpha']);
    expect(batches).toEqual([['alpha']]);
    expect(await logger.log({ query: 'q', answer: 'x', nodes: await new ListRetriever(['unknown'])._retrieve() })).toBeNull();
    expect(await logger.log({ query: 'q', answer: 'x', nodes: [] })).toBeNull();
    expect(logged.length).toBe(1);
  });
});
