/**
 * Hostile input on the real HTTP server, Postgres and the embedded vector store (issue 10): NUL
 * characters and lone UTF-16 surrogates (unstorable in Postgres text/jsonb) are refused with a 400
 * naming the field, on every endpoint, before anything is written; user input is never echoed at
 * unbounded length. Issue 35: JSON nested past JSON_MAX_DEPTH is refused with a 400 on every route
 * (Nest and the intake's fast path) before parsing; no malformed body answers 500; encoded [LATEST]
 * markers are stripped from ingested texts and feedback fields.
 */
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

type Json = Record<string, any>;
const NUL = 'contains a NUL character (U+0000), which cannot be stored';
const SURROGATE = 'contains a lone UTF-16 surrogate';

describe('hostile input', () => {
  let t: TestApp;
  const collection = uniqueName('hostile');

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(t.url + path, {
      method, headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY, ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json: Json | null = null;
    try { json = JSON.parse(text) as Json; } catch { /* not JSON */ }
    return { status: res.status, text, body: json as Json };
  };
  const expect400 = (r: { status: number; body: Json }, ...fragments: string[]) => {
    expect(r.status).toBe(400);
    for (const f of fragments) expect(r.body.message).toContain(f);
  };

  let servedId = '';

  beforeAll(async () => {
    t = await createTestApp({ api: true });
    const r = await call('POST', `/v1/collections/${collection}/documents`, { documents: [{ id: 'ok', text: 'Moby-Dick is an 1851 novel by Herman Melville.' }] });
    expect(r.status).toBe(200);
    servedId = r.body.ids[0];
  });

  afterAll(async () => {
    await t?.close();
  });

  /** A raw body sent chunked (no Content-Length): the intake's fast path declines it, express + Nest answer. */
  const callChunked = async (method: string, path: string, body: string) => {
    const stream = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(body)); c.close(); } });
    const res = await fetch(t.url + path, { method, headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: stream, duplex: 'half' } as RequestInit);
    const text = await res.text();
    let json: Json | null = null;
    try { json = JSON.parse(text) as Json; } catch { /* not JSON */ }
    return { status: res.status, text, body: json as Json };
  };
  const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const TOO_DEEP = 'nested deeper than 32 levels';

  it('JSON nested 5,000 deep: 400 naming the limit on ingest metadata, feedback reporter (fast path and Nest), answers servedIds, a quarantine note', async () => {
    const fresh = uniqueName('hostile-deep');
    const deep = arrays(5000);
    const bodies: Array<[string, string, string]> = [
      ['POST', `/v1/collections/${fresh}/documents`, `{"documents":[{"text":"fine","metadata":{"a":${deep}}}]}`],
      ['POST', '/v1/feedback', `{"collection":"${collection}","query":"q","wrongAnswer":"w","reporter":${deep}}`],
      ['POST', '/v1/answers', `{"collection":"${collection}","query":"q","answer":"a","servedIds":${deep}}`],
      ['POST', '/v1/quarantine/00000000-0000-5000-8000-000000000000/restore', `{"note":${deep}}`],
    ];
    for (const [method, path, body] of bodies) {
      for (const r of [await call(method, path, body), await callChunked(method, path, body)]) {
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
        expect(r.body.message).toContain(TOO_DEEP);
        expect(r.body.message).toContain('JSON_MAX_DEPTH');
      }
    }
    expect(await t.prisma.document.count({ where: { collection: fresh } })).toBe(0);
    // At the limit exactly (body, documents, record, metadata + 28 arrays = 32) the body is taken; one more is refused.
    expect((await call('POST', `/v1/collections/${fresh}/documents`, `{"documents":[{"text":"deep but fine","metadata":{"a":${arrays(28)}}}]}`)).status).toBe(200);
    expect((await call('POST', `/v1/collections/${fresh}/documents`, `{"documents":[{"text":"one too deep","metadata":{"a":${arrays(29)}}}]}`)).body.message).toContain(TOO_DEEP);
    // Brackets inside strings are text, not nesting.
    expect((await call('POST', '/v1/feedback', { collection, query: 'q', wrongAnswer: '['.repeat(3000) })).status).toBe(202);
  });

  it('no malformed or hostile body answers 500, on any route, by either intake path', async () => {
    const deep = 5000;
    const malformed: Array<string | Uint8Array> = [
      '{', '[', '{"a":', '{"a":1}}', '"just a string"', '1', 'null', 'true', '[1,2,]', '{"a":1,}', "{'a':1}", '{"a":NaN}', '{"a":1e999999}',
      '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', '[]', '{}', '[{}]', ' ', '\ufeff{}',
      '{'.repeat(deep), '['.repeat(deep), '{"a":'.repeat(deep), `[${'{"a":['.repeat(deep)}`, `["${'['.repeat(deep)}`, `{"a":"\\"${'['.repeat(deep)}`,
      '{"a":"\ud800"}', '{"a":"\u0000"}', '{"a":"\\x"}', `{"${'k'.repeat(100_000)}":1}`, `{"query":${'9'.repeat(10_000)}}`,
      new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), new Uint8Array([0xc0, 0xaf, 0x7b, 0x7d]),
    ];
    const routes: Array<[string, string]> = [
      ['POST', '/v1/feedback'], ['POST', `/v1/collections/${collection}/documents`], ['POST', '/v1/answers'], ['POST', '/v1/rag/answer'],
      ['POST', '/v1/quarantine/00000000-0000-5000-8000-000000000000/restore'], ['POST', '/v1/feedback/00000000-0000-5000-8000-000000000000/correct-answer'],
      ['POST', '/v1/session'], ['POST', '/v1/admin/keys'],
    ];
    const statuses = new Map<number, number>();
    const fivehundreds: string[] = [];
    for (const [method, path] of routes) {
      for (const body of malformed) {
        for (const chunked of [false, true]) {
          const text = typeof body === 'string' ? body : Buffer.from(body).toString('latin1');
          const r = chunked
            ? await callChunked(method, path, typeof body === 'string' ? body : Buffer.from(body).toString('utf8'))
            : await fetch(t.url + path, { method, headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: typeof body === 'string' ? body : Buffer.from(body) })
              .then(async (res) => ({ status: res.status, text: await res.text() }));
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          if (r.status >= 500) fivehundreds.push(`${method} ${path} ${chunked ? '(chunked)' : ''} ${text.slice(0, 40)} → ${r.status} ${r.text.slice(0, 200)}`);
        }
      }
    }
    expect(fivehundreds).toEqual([]);
    expect(statuses.get(400)).toBeGreaterThan(routes.length * 10); // the malformed ones are 400s, not 404s or 401s
    expect(({}) as Json).not.toHaveProperty('polluted');
  });

  it('encoded [LATEST] markers (HTML references, percent-encoding, double-encoded) are stripped from ingested texts and feedback fields', async () => {
    const fresh = uniqueName('hostile-marker');
    const forms = ['&#91;LATEST&#93;', '&lbrack;LATEST&rbrack;', '&#x5B;/LATEST&#x5D;', '%5BLATEST%5D', '&amp;#91;LATEST&amp;#93;', '%EF%BC%BBLATEST%EF%BC%BD'];
    const r = await call('POST', `/v1/collections/${fresh}/documents`, { documents: forms.map((f, i) => ({ id: `m${i}`, text: `Text ${i}: ${f}Herman Melville wrote Moby-Dick.` })) });
    expect(r.status).toBe(200);
    const stored = await t.prisma.document.findMany({ where: { collection: fresh }, orderBy: { externalId: 'asc' } });
    expect(stored.map((d) => d.text)).toEqual(forms.map((_, i) => `Text ${i}: Herman Melville wrote Moby-Dick.`));
    for (const form of forms) {
      const fb = await call('POST', '/v1/feedback', { collection: fresh, query: `who wrote ${form} Moby-Dick`, wrongAnswer: `${form}Dickens`, correctAnswer: `Melville ${form}`, reporter: `r${form}` });
      expect(fb.status).toBe(202);
      const row = await t.prisma.feedbackEvent.findUniqueOrThrow({ where: { id: fb.body.id } });
      expect([row.query, row.wrongAnswer, row.correctAnswer, row.reporter]).toEqual(['who wrote  Moby-Dick', 'Dickens', 'Melville ', 'r']);
    }
  });

  it('ingest: NUL or a lone surrogate anywhere in a record → 400 naming the field, nothing written', async () => {
    const fresh = uniqueName('hostile-ingest');
    const cases: Array<[unknown, string]> = [
      [{ documents: [{ text: 'nul\u0000doc' }] }, `documents[0].text ${NUL}`],
      [{ documents: [{ text: 'fine' }, { text: 'half \ud800 a pair' }] }, `documents[1].text ${SURROGATE}`],
      [{ documents: [{ id: 'a\u0000b', text: 'fine' }] }, `documents[0].id ${NUL}`],
      [{ documents: [{ text: 'fine', metadata: { source: 'x\u0000' } }] }, `documents[0].metadata.source ${NUL}`],
      [{ documents: [{ text: 'fine', metadata: { deep: { list: ['ok', 'bad\u0000'] } } }] }, `documents[0].metadata.deep.list[1] ${NUL}`],
      [{ documents: [{ text: 'fine', metadata: { 'k\u0000ey': 1 } }] }, `a key in documents[0].metadata ${NUL}`],
      [{ documents: [{ text: 'fine', metadata: { a: '\udc00' } }] }, `documents[0].metadata.a ${SURROGATE}`],
    ];
    for (const [body, message] of cases) {
      const r = await call('POST', `/v1/collections/${fresh}/documents`, body);
      expect400(r, message);
      expect(r.body.message).not.toContain('\u0000');
    }
    // the valid record of a rejected request was not written either
    expect(await t.prisma.document.count({ where: { collection: fresh } })).toBe(0);
    expect(await t.store.count(fresh).catch(() => 0)).toBe(0);
    // the path parameter too
    expect400(await call('POST', `/v1/collections/a%00b/documents`, { documents: [{ text: 'fine' }] }), `collection ${NUL}`);
    expect(await t.prisma.document.count({ where: { collection } })).toBe(1);
    expect(await t.store.count(collection)).toBe(1);
  });

  it('feedback: NUL in any field or in the Idempotency-Key → 400 naming it, no feedback row', async () => {
    const before = await t.prisma.feedbackEvent.count();
    const good = { collection, query: 'who wrote moby dick', wrongAnswer: 'Charles Dickens' };
    const cases: Array<[Json, string]> = [
      [{ ...good, query: 'who\u0000' }, `query ${NUL}`],
      [{ ...good, wrongAnswer: 'Dickens\u0000' }, `wrongAnswer ${NUL}`],
      [{ ...good, correctAnswer: '\u0000' }, `correctAnswer ${NUL}`],
      [{ ...good, reporter: 'me\u0000' }, `reporter ${NUL}`],
      [{ ...good, servedIds: [servedId, 'x\u0000'] }, `servedIds[1] ${NUL}`],
      [{ ...good, wrongAnswer: 'lone \udbff' }, `wrongAnswer ${SURROGATE}`],
    ];
    for (const [body, message] of cases) expect400(await call('POST', '/v1/feedback', body), message);
    // (fetch refuses to send U+0000 in a header: the Idempotency-Key check is unit-tested with assertStorable)
    expect(await t.prisma.feedbackEvent.count()).toBe(before);
    expect400(await call('GET', '/v1/feedback/abc%00def'), `id ${NUL}`);
  });

  it('answers, rag, correct answers, review notes, list filters: NUL → 400 naming the field', async () => {
    expect400(await call('POST', '/v1/rag/answer', { collection, query: 'moby\u0000dick' }), `query ${NUL}`);
    expect400(await call('POST', '/v1/answers', { collection, query: 'q', answer: 'a\u0000', servedIds: [servedId] }), `answer ${NUL}`);
    expect400(await call('POST', '/v1/answers', { collection, query: 'q', answer: 'a', servedIds: ['\u0000'] }), `servedIds[0] ${NUL}`);
    expect(await t.prisma.answer.count({ where: { collection } })).toBe(0);
    expect400(await call('POST', `/v1/feedback/00000000-0000-5000-8000-000000000000/correct-answer`, { correctAnswer: 'x\u0000' }), `correctAnswer ${NUL}`);
    expect400(await call('POST', `/v1/quarantine/00000000-0000-5000-8000-000000000000/restore`, { note: 'n\u0000' }), `note ${NUL}`);
    expect400(await call('POST', `/v1/quarantine/a%00/approve`, {}), `id ${NUL}`);
    expect400(await call('GET', `/v1/enhancements?collection=a%00b`), `collection ${NUL}`);
    expect400(await call('GET', `/v1/quarantine?collection=a%00b`), `collection ${NUL}`);
    expect400(await call('DELETE', `/v1/enhancements/a%00`), `id ${NUL}`);
  });

  it('GET /v1/feedback/:id shows a short, sanitised failure reason; the full one stays stored', async () => {
    const full = [
      "TypeError: Cannot read properties of undefined (reading 'label') at /srv/app/libs/core/src/use-cases/run-traceback/run-traceback.use-case.ts:120:17",
      '    at RunTracebackUseCase.execute (/srv/app/libs/core/src/use-cases/run-traceback/run-traceback.use-case.ts:120:17)',
      "  120 |   const secret = verdict.label;",
    ].join('\n');
    const { event: e } = await t.repos.feedback.create({ collection, query: 'q', wrongAnswer: 'w', k: 3 });
    await t.repos.feedback.update(e.id, { failureReason: full });
    const r = await call('GET', `/v1/feedback/${e.id}`);
    expect(r.status).toBe(200);
    expect(r.body.failureReason).toBe("TypeError: Cannot read properties of undefined (reading 'label') at <path>");
    expect(r.body.failureDetailsWithheld).toBe(true);
    expect(r.text).not.toMatch(/\/srv\/app|\.ts:\d+|secret/);
    expect((await t.repos.feedback.get(e.id))!.failureReason).toBe(full);
  });

  it('a 5,000-character collection name is not echoed back', async () => {
    const long = 'c'.repeat(5000);
    for (const r of [
      await call('GET', `/v1/collections/${long}`),
      await call('POST', `/v1/collections/${long}/documents`, { documents: [{ text: 'fine' }] }),
      await call('POST', '/v1/rag/answer', { collection: long, query: 'q' }),
      await call('POST', '/v1/feedback', { collection: long, query: 'q', wrongAnswer: 'w' }),
      await call('GET', `/v1/feedback/${long}`),
      await call('POST', `/v1/feedback/${long}/correct-answer`, { correctAnswer: 'x' }),
      await call('GET', `/v1/enhancements?collection=${long}`),
      await call('GET', `/v1/no-such-route/${long}`),
      await call('POST', '/v1/feedback', { query: 'q', wrongAnswer: 'w', [long]: 1 }),
    ]) {
      expect(r.status).toBeGreaterThanOrEqual(200);
      expect(r.text).not.toContain('c'.repeat(200));
      expect(r.text.length).toBeLessThan(1000);
    }
    const r = await call('GET', `/v1/collections/${long}`);
    expect(r.status).toBe(404);
    expect(r.body.message).toContain(`'${'c'.repeat(80)}… (5000 characters)'`);
  });
});
