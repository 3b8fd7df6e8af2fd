/**
 * Answers and feedback tokens on real parts: Postgres, Redis, the embedded vector store, the real
 * HTTP server, the USE-lite encoder and the offline generator (the OpenAI generator against the
 * scripted OpenAI-compatible server). Built-in RAG answers (quarantine excluded, retrieval proxies
 * replaced by benign texts), external answer logging, feedback by token (401/404/one event per
 * answer, served ids from the log, purged texts dropped), [LATEST] stripping, the widget script.
 */
import { randomUUID } from 'node:crypto';
import { AnswerQueryUseCase, BTE_PROXY_KIND, CORE_SETTINGS, GeneratorError, signFeedbackToken } from '@forensics/core';
import { OpenAiGenerator, renderBteV1, renderRagBteV1, renderRagV1 } from '@forensics/infra';
import { startOpenAiTestServer } from './support/openai-test-server';
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

const DOCS = [
  { id: 'melville', text: 'Moby-Dick is an 1851 novel by the American writer Herman Melville about the whaling ship Pequod.' },
  { id: 'dickens', text: 'The novel Moby-Dick was written by Charles Dickens, the English author, in 1851.' },
  { id: 'whale', text: 'The sperm whale is the largest of the toothed whales and the largest toothed predator.' },
  { id: 'austen', text: 'Pride and Prejudice is an 1813 novel of manners by the English writer Jane Austen.' },
  { id: 'tale', text: 'A Tale of Two Cities is an 1859 historical novel by Charles Dickens set in London and Paris.' },
];
const QUERY = 'who wrote the novel moby dick';

type Json = Record<string, any>;

describe('answers, answer log and feedback tokens', () => {
  let t: TestApp;
  let base: string;
  const collection = uniqueName('answers');
  const ids: Record<string, string> = {};

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { 'x-api-key': TEST_API_KEY }) => {
    const res = await fetch(base + path, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, headers: res.headers, body: (await res.json().catch(() => null)) as Json };
  };
  const withToken = (token: string) => ({ authorization: `FeedbackToken ${token}` });
  const answer = async (query = QUERY, k = 3, coll = collection) => {
    const r = await call('POST', '/v1/rag/answer', { collection: coll, query, k });
    expect(r.status).toBe(200);
    return r.body;
  };

  beforeAll(async () => {
    t = await createTestApp({ api: true });
    base = t.url;
    const r = await call('POST', `/v1/collections/${collection}/documents`, { documents: DOCS });
    expect(r.status).toBe(200);
    const docs = await t.prisma.document.findMany({ where: { collection } });
    for (const d of docs) ids[d.externalId!] = d.id;
    expect(Object.keys(ids).sort()).toEqual(DOCS.map((d) => d.id).sort());
  });

  afterAll(async () => {
    await t?.close();
  });

  it('POST /v1/rag/answer needs an API key, answers from the top-k and logs what was served', async () => {
    expect((await call('POST', '/v1/rag/answer', { collection, query: QUERY }, {})).status).toBe(401);
    const a = await answer();
    expect(a.contexts).toHaveLength(3);
    expect([ids.melville, ids.dickens]).toContain(a.contexts[0].id);
    expect(a.enhanced).toBe(false);
    expect(a.generator).toEqual({ kind: 'offline', model: 'offline-extractive-v1', promptVersion: 'offline-extract-v1' });
    expect(a.answer).toBe(a.contexts[0].text); // extractive: the top text is one sentence sharing the query's terms
    const row = await t.prisma.answer.findUnique({ where: { id: a.answerId } });
    expect(row).toMatchObject({ collection, query: QUERY, answer: a.answer, source: 'builtin', generatorKind: 'offline', promptVersion: 'offline-extract-v1', embedder: t.embedder.id });
    expect(row!.servedIds).toEqual(a.contexts.map((c: Json) => c.id));
    expect(row!.servedScores).toEqual(a.contexts.map((c: Json) => c.score));
    expect(typeof a.feedbackToken).toBe('string');
    expect(new Date(a.feedbackTokenExpiresAt).getTime() - Date.now()).toBeGreaterThan(6.9 * 86400_000);

    const marked = await call('POST', '/v1/rag/answer', { collection, query: `[LATEST] ${QUERY} [/latest]` });
    expect((await t.prisma.answer.findUnique({ where: { id: marked.body.answerId } }))!.query).toBe(QUERY);

    const bad = await call('POST', '/v1/rag/answer', { collection, query: '', k: 99, colection: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/query must not be empty.*k must be an integer.*unknown field 'colection'/);
    expect((await call('POST', '/v1/rag/answer', { collection: 'no_such_coll', query: QUERY })).status).toBe(404);
  });

  it('excludes quarantined texts from answers', async () => {
    const before = await answer(QUERY, 5);
    expect(before.contexts.map((c: Json) => c.id)).toContain(ids.dickens);
    await t.store.setQuarantined(collection, [ids.dickens], true);
    try {
      const after = await answer(QUERY, 5);
      expect(after.contexts.map((c: Json) => c.id)).not.toContain(ids.dickens);
      expect(after.contexts).toHaveLength(4);
      expect(after.answer).not.toContain('Charles Dickens, the English author');
    } finally {
      await t.store.setQuarantined(collection, [ids.dickens], false);
    }
  });

  it('replaces a retrieval proxy by its benign text and answers from it (BTE)', async () => {
    const coll = uniqueName('bte');
    expect((await call('POST', `/v1/collections/${coll}/documents`, { documents: DOCS })).status).toBe(200);
    const plain = await answer(QUERY, 3, coll);
    expect(plain.enhanced).toBe(false);
    // A proxy as BTE stores it: the query's vector, payload kind bte-proxy, plus the enhancement row.
    const proxyId = randomUUID();
    const [qv] = await t.embedder.embed([QUERY]);
    await t.store.upsert(coll, [{ id: proxyId, vector: qv, text: QUERY, payload: { kind: BTE_PROXY_KIND } }]);
    const { event } = await t.repos.feedback.create({ collection: coll, query: QUERY, wrongAnswer: 'Charles Dickens', correctAnswer: 'Herman Melville', k: 3 });
    const benign = '[LATEST] The novel Moby-Dick was written by Herman Melville and published in 1851. [/LATEST]';
    const enh = await t.repos.enhancements.create({ collection: coll, feedbackId: event.id, query: QUERY, correctAnswer: 'Herman Melville', benignText: benign, proxyId, generatorKind: 'offline', generatorModel: 'offline-extractive-v1', promptVersion: 'offline-template-v1', createdBy: 'test' });

    const a = await answer(QUERY, 3, coll);
    expect(a.enhanced).toBe(true);
    expect(a.contexts[0]).toMatchObject({ id: proxyId, text: benign, enhancement: true, enhancementId: enh.id });
    expect(a.contexts.map((c: Json) => c.text)).not.toContain(QUERY); // the proxy's own text is never served
    expect(a.answer).toBe('The novel Moby-Dick was written by Herman Melville and published in 1851.');
    expect(a.generator.promptVersion).toBe('offline-extract-bte-v1');
    const row = await t.prisma.answer.findUnique({ where: { id: a.answerId } });
    expect(row!.servedIds[0]).toBe(proxyId);

    // Deleted enhancement → the proxy is dropped, not served.
    await t.repos.enhancements.markDeleted(enh.id, 'test');
    const after = await answer(QUERY, 3, coll);
    expect(after.enhanced).toBe(false);
    expect(after.contexts.map((c: Json) => c.id)).not.toContain(proxyId);
  });

  it('POST /v1/answers logs an external answer; unknown served ids → 400 naming them', async () => {
    const unknown = randomUUID();
    const bad = await call('POST', '/v1/answers', { collection, query: QUERY, answer: 'Charles Dickens', servedIds: [ids.dickens, unknown, 'p7'] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain(unknown);
    expect(bad.body.message).toContain('p7');
    expect(bad.body.message).not.toContain(ids.dickens);
    expect((await call('POST', '/v1/answers', { collection, query: QUERY, answer: 'x', servedIds: [ids.dickens] }, {})).status).toBe(401);
    const ok = await call('POST', '/v1/answers', { collection, query: `[LATEST]${QUERY}[/LATEST]`, answer: '[latest] Charles Dickens', servedIds: [ids.dickens, ids.tale], servedScores: [0.9, 0.5] });
    expect(ok.status).toBe(201);
    const row = await t.prisma.answer.findUnique({ where: { id: ok.body.answerId } });
    expect(row).toMatchObject({ query: QUERY, answer: 'Charles Dickens', servedIds: [ids.dickens, ids.tale], servedScores: [0.9, 0.5], source: 'external' });
    expect(typeof ok.body.feedbackToken).toBe('string');
  });

  it('feedback by token: one event per answer with the served texts; repeat → same event; markers stripped', async () => {
    const a = await answer();
    const first = await call('POST', '/v1/feedback', { answerId: a.answerId, correctAnswer: '[LATEST]Herman Melville[/LATEST]' }, withToken(a.feedbackToken));
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ duplicate: false, answerId: a.answerId, servedIds: a.contexts.map((c: Json) => c.id) });
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    const ev = await t.prisma.feedbackEvent.findUnique({ where: { id: first.body.id } });
    expect(ev).toMatchObject({ collection, query: QUERY, wrongAnswer: a.answer, correctAnswer: 'Herman Melville', answerId: a.answerId, servedIds: a.contexts.map((c: Json) => c.id) });

    // Again, by header and by body field: the same event, nothing new.
    const again = await call('POST', '/v1/feedback', { correctAnswer: 'other' }, withToken(a.feedbackToken));
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ id: first.body.id, duplicate: true });
    const byBody = await call('POST', '/v1/feedback', { feedbackToken: a.feedbackToken }, {});
    expect(byBody.body).toMatchObject({ id: first.body.id, duplicate: true });
    expect(await t.prisma.feedbackEvent.count({ where: { answerId: a.answerId } })).toBe(1);

    // The user's own wrongAnswer wins over the logged one (markers stripped).
    const b = await answer('who wrote pride and prejudice');
    const own = await call('POST', '/v1/feedback', { wrongAnswer: '[/LATEST]Charlotte Bronte' }, withToken(b.feedbackToken));
    expect((await t.prisma.feedbackEvent.findUnique({ where: { id: own.body.id } }))!.wrongAnswer).toBe('Charlotte Bronte');

    // Fields that come from the log cannot be overridden with a token.
    const c = await answer('largest toothed whale');
    const override = await call('POST', '/v1/feedback', { query: 'something else', servedIds: [] }, withToken(c.feedbackToken));
    expect(override.status).toBe(400);
    expect(override.body.message).toContain("'query' comes from the logged answer");
  });

  it('tampered, expired or malformed tokens → 401 with the reason; unknown answer → 404', async () => {
    const a = await answer();
    const [payload, sig] = a.feedbackToken.split('.');
    const other = Buffer.from(JSON.stringify({ answerId: randomUUID(), exp: Math.floor(Date.now() / 1000) + 3600 })).toString('base64url');
    const tampered = await call('POST', '/v1/feedback', {}, withToken(`${other}.${sig}`));
    expect(tampered.status).toBe(401);
    expect(tampered.body.message).toMatch(/bad signature/);
    const flipped = await call('POST', '/v1/feedback', {}, withToken(`${payload}.${sig.slice(0, 5)}${sig[5] === 'x' ? 'y' : 'x'}${sig.slice(6)}`));
    expect(flipped.status).toBe(401);
    expect(flipped.headers.get('access-control-allow-origin')).toBe('*'); // a cross-origin widget can read the reason
    const { secret } = t.get(CORE_SETTINGS).feedbackTokens;
    const expired = signFeedbackToken(a.answerId, secret, 60, new Date(Date.now() - 3600_000)).token;
    const exp = await call('POST', '/v1/feedback', {}, withToken(expired));
    expect(exp.status).toBe(401);
    expect(exp.body.message).toBe('feedback token expired');
    const malformed = await call('POST', '/v1/feedback', {}, withToken('not-a-token'));
    expect(malformed.status).toBe(401);
    expect(malformed.body.message).toMatch(/malformed/);
    expect((await call('POST', '/v1/feedback', {}, { authorization: 'FeedbackToken' })).status).toBe(401);
    const unknown = await call('POST', '/v1/feedback', {}, withToken(signFeedbackToken(randomUUID(), secret).token));
    expect(unknown.status).toBe(404);
    expect(await t.prisma.feedbackEvent.count({ where: { answerId: a.answerId } })).toBe(0);
  });

  it('a token is bound to its answer and to POST /v1/feedback only', async () => {
    const a = await answer();
    const b = await answer('who wrote a tale of two cities');
    const cross = await call('POST', '/v1/feedback', { answerId: b.answerId }, withToken(a.feedbackToken));
    expect(cross.status).toBe(401);
    expect(cross.body.message).toMatch(/different answer/);
    expect(await t.prisma.feedbackEvent.count({ where: { answerId: { in: [a.answerId, b.answerId] } } })).toBe(0);
    for (const [method, path, body] of [['POST', '/v1/rag/answer', { collection, query: QUERY }], ['GET', `/v1/feedback/${randomUUID()}`, undefined], ['POST', '/v1/answers', { collection, query: 'q', answer: 'a', servedIds: [] }]] as const) {
      const r = await call(method, path, body, withToken(a.feedbackToken));
      expect(r.status).toBe(401);
      expect(r.body.message).toMatch(/only by POST \/v1\/feedback/);
    }
    const both = await call('POST', '/v1/feedback', {}, { ...withToken(a.feedbackToken), 'x-api-key': TEST_API_KEY });
    expect(both.status).toBe(400);
    // Token feedback still needs no API key, and the API-key path is unchanged.
    expect((await call('POST', '/v1/feedback', {}, withToken(a.feedbackToken))).status).toBe(202);
    expect((await call('POST', '/v1/feedback', { collection, query: QUERY, wrongAnswer: 'x' })).status).toBe(202);
  });

  it('feedback on an answer whose served texts were purged since: accepted, purged ids dropped and reported', async () => {
    const a = await answer('largest toothed predator whale', 2);
    const purged = a.contexts[1].id as string;
    await t.prisma.document.update({ where: { id: purged }, data: { status: 'PURGED' } });
    const r = await call('POST', '/v1/feedback', { correctAnswer: 'the sperm whale' }, withToken(a.feedbackToken));
    expect(r.status).toBe(202);
    expect(r.body.droppedServedIds).toEqual([purged]);
    expect(r.body.message).toMatch(/purged/);
    expect((await t.prisma.feedbackEvent.findUnique({ where: { id: r.body.id } }))!.servedIds).toEqual([a.contexts[0].id]);
  });

  it('answers CORS preflights for POST /v1/feedback; serves /widget.js publicly with cache headers', async () => {
    const pre = await fetch(`${base}/v1/feedback`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    const js = await fetch(`${base}/widget.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(js.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(await js.text()).toContain('data-rag-feedback');
    expect((await fetch(`${base}/widget.js`, { headers: { 'if-none-match': js.headers.get('etag')! } })).status).toBe(304);
    const page = await fetch(`${base}/widget/example?answerId=x&token=y`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('the OpenAI generator sends rag-v1, or rag-bte-v1 when a benign text is served, at temperature 0', async () => {
    const server = await startOpenAiTestServer({ requireApiKey: 'sk-gen' });
    // The same service configured with the OpenAI generator: this test's Postgres and vector store
    // directory (DATA_DIR), GENERATOR=openai against the scripted server.
    let gen: TestApp | undefined;
    try {
      gen = await createTestApp({ queue: false, env: { DATA_DIR: t.dataDir, GENERATOR: 'openai', OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-gen', GENERATOR_MODEL: 'gpt-test' } });
      const uc = gen.get(AnswerQueryUseCase);
      server.enqueue('Charles Dickens');
      const a = await uc.execute({ collection, query: QUERY, k: 2 });
      expect(a.answer).toBe('Charles Dickens');
      const [req1] = server.chatRequests();
      expect(req1.body.temperature).toBe(0);
      expect(req1.body.model).toBe('gpt-test');
      expect(req1.body.messages).toEqual([{ role: 'user', content: renderRagV1(QUERY, a.contexts.map((c) => c.text)) }]);
      expect((await gen.prisma.answer.findUnique({ where: { id: a.answerId } }))).toMatchObject({ generatorKind: 'openai', generatorModel: 'gpt-test', promptVersion: 'rag-v1' });

      const proxyId = randomUUID();
      const [qv] = await gen.embedder.embed([QUERY]);
      await gen.store.upsert(collection, [{ id: proxyId, vector: qv, text: QUERY, payload: { kind: BTE_PROXY_KIND } }]);
      const { event } = await gen.repos.feedback.create({ collection, query: QUERY, wrongAnswer: 'Charles Dickens', k: 3 });
      const enh = await gen.repos.enhancements.create({ collection, feedbackId: event.id, query: QUERY, correctAnswer: 'Herman Melville', benignText: '[LATEST] Herman Melville wrote Moby-Dick. [/LATEST]', proxyId, generatorKind: 'openai', generatorModel: 'gpt-test', promptVersion: 'bte-v1', createdBy: 'test' });
      try {
        server.enqueue('Entry 1 is wrapped… Herman Melville');
        const b = await uc.execute({ collection, query: QUERY, k: 2 });
        expect(b.generator.promptVersion).toBe('rag-bte-v1');
        expect(server.chatRequests()[1].body.messages![0].content).toBe(renderRagBteV1(QUERY, ['[LATEST] Herman Melville wrote Moby-Dick. [/LATEST]', b.contexts[1].text]));
      } finally {
        await gen.repos.enhancements.markDeleted(enh.id, 'test');
        await gen.store.delete(collection, [proxyId]);
      }

      // The adapter itself, without retries: benign text (bte-v1) and the transient/permanent error split.
      const generator = new OpenAiGenerator({ baseURL: server.url, apiKey: 'sk-gen', model: 'gpt-test', maxRetries: 0 });
      server.enqueue('[LATEST] Herman Melville wrote the novel Moby-Dick in 1851. [/LATEST]');
      const bt = await generator.benignText({ query: QUERY, correctAnswer: 'Herman Melville' });
      expect(bt).toEqual({ text: 'Herman Melville wrote the novel Moby-Dick in 1851.', promptVersion: 'bte-v1' });
      expect(server.chatRequests()[2].body.messages![0].content).toBe(renderBteV1(QUERY, 'Herman Melville'));

      server.enqueue({ status: 503 });
      const err = await generator.generate({ query: QUERY, contexts: [], enhanced: false }).catch((e) => e);
      expect(err).toBeInstanceOf(GeneratorError);
      expect(err.transient).toBe(true);
      server.enqueue({ status: 400 });
      expect((await generator.generate({ query: QUERY, contexts: [], enhanced: false }).catch((e) => e)).transient).toBe(false);
    } finally {
      await gen?.app.close(); // not gen.close(): the data directory belongs to `t`
      await server.close();
    }
  });
});
