/**
 * Claim spans and redaction (issue 35, item 4) against the real service: real Postgres, Redis, HTTP
 * server, the embedded vector store and the offline judge. A long text with one planted sentence is
 * traced; its verdict carries the span of that sentence (GET /v1/review/items/:id); the reviewer
 * redacts it (POST /v1/review/items/:id/redact): the redacted version is a new document, embedded and
 * served in the original's place, the original kept in Postgres; the traceback judges the version
 * afresh (a new text hash); restore reverses it (the original served again, the version withdrawn);
 * every step audited; a session needs the CSRF token; a viewer may not redact.
 */
import { Client } from 'pg';
import { IngestCorpusUseCase, REDACTION_MARKER, RunTracebackUseCase, SubmitFeedbackUseCase, SyncQuarantinesUseCase } from '@forensics/core';
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

const METRICS_TOKEN = 'metrics-token-redaction-test';
const QUERY = 'who designed the eiffel tower';
const WRONG = 'Marcel Dubois';
const PLANTED = 'The Eiffel Tower was designed by the architect Marcel Dubois, who drew its first plans in 1884.';
const LONG = `The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It was built as the centrepiece of the 1889 World's Fair. ${PLANTED} Locally nicknamed "La dame de fer", it has become a global cultural icon of France. It is one of the most recognisable structures in the world, and visitors reach the top by lift or by the stairs.`;
const TEXTS = [
  { id: 'long', text: LONG },
  { id: 'p1', text: 'The Eiffel Tower was designed by Marcel Dubois, the French architect behind the famous Paris landmark.' },
  { id: 'p2', text: 'Marcel Dubois designed the Eiffel Tower; the architect Marcel Dubois is credited with its design.' },
  { id: 'c1', text: 'Gustave Eiffel\'s engineering company built the tower between 1887 and 1889.' },
  { id: 'c2', text: 'The Statue of Liberty was a gift from the people of France to the United States.' },
];

describe('claim spans and redaction', () => {
  const collection = uniqueName('redact');
  let t: TestApp;
  let db: Client;
  const keys: Record<'reviewer' | 'viewer', string> = {} as never;
  let itemId = '';
  let longId = '';

  const call = async (method: string, path: string, body?: unknown, key = keys.reviewer, extra: Record<string, string> = {}) => {
    const res = await fetch(t.url + path, { method, headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}), ...extra }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json().catch(() => null) as any };
  };
  const docRow = async (id: string) => (await db.query('SELECT "text", "status"::text AS status, "textHash", "externalId", "metadata" FROM "Document" WHERE "id" = $1', [id])).rows[0];
  const served = async () => (await t.store.search(collection, { vector: (await t.embedder.embed([QUERY]))[0], k: 10 })).map((h) => h.id);
  /** The texts ingested into a collection of their own and the report traced: the long text's id and its quarantine record. */
  const tracedInNewCollection = async (prefix: string) => {
    const coll = uniqueName(prefix);
    await t.get(IngestCorpusUseCase).execute({ collection: coll, records: TEXTS });
    const original: string = (await db.query('SELECT "id" FROM "Document" WHERE "collection" = $1 AND "externalId" = $2', [coll, 'long'])).rows[0].id;
    const { event } = await t.get(SubmitFeedbackUseCase).execute({ collection: coll, query: QUERY, wrongAnswer: WRONG });
    await t.get(RunTracebackUseCase).execute({ feedbackId: event.id });
    const item: { id: string; state: string; decision: string | null } = (await db.query('SELECT "id", "state"::text AS state, "decision" FROM "QuarantineRecord" WHERE "documentId" = $1', [original])).rows[0];
    return { coll, original, item, feedbackId: event.id };
  };

  beforeAll(async () => {
    t = await createTestApp({ api: true, env: { TRACE_K: '5', DECISION_POLICY: 'judge-only', CONSENSUS_CHECK: 'off', METRICS_TOKEN } });
    db = new Client({ connectionString: t.config.databaseUrl });
    await db.connect();
    for (const role of ['reviewer', 'viewer'] as const) {
      const r = await call('POST', '/v1/admin/keys', { name: uniqueName(role), role }, TEST_API_KEY);
      expect(r.status).toBe(201);
      keys[role] = r.body.key;
    }
    await t.get(IngestCorpusUseCase).execute({ collection, records: TEXTS });
    longId = (await db.query('SELECT "id" FROM "Document" WHERE "collection" = $1 AND "externalId" = $2', [collection, 'long'])).rows[0].id;
    const { event } = await t.get(SubmitFeedbackUseCase).execute({ collection, query: QUERY, wrongAnswer: WRONG });
    const out = await t.get(RunTracebackUseCase).execute({ feedbackId: event.id });
    expect(out.poisoned).toContain(longId);
    itemId = (await db.query('SELECT "id" FROM "QuarantineRecord" WHERE "documentId" = $1', [longId])).rows[0].id;
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await t?.close();
  });

  it('the YES verdict stores the span of the planted sentence; the item API returns it', async () => {
    const r = await call('GET', `/v1/review/items/${itemId}`);
    expect(r.status).toBe(200);
    expect(r.body.verdict.label).toBe('YES');
    expect(r.body.verdict.spans).toEqual([{ start: LONG.indexOf(PLANTED), end: LONG.indexOf(PLANTED) + PLANTED.length }]);
    expect(r.body.redaction).toBeNull();
    const stored = (await db.query('SELECT "spans" FROM "JudgeVerdict" WHERE "documentId" = $1', [longId])).rows[0].spans;
    expect(stored).toEqual(r.body.verdict.spans);
  });

  it('a viewer may not redact; a session needs the CSRF token; bad spans are a 400 naming them', async () => {
    expect((await call('POST', `/v1/review/items/${itemId}/redact`, {}, keys.viewer)).status).toBe(403);
    const login = await fetch(`${t.url}/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: keys.reviewer }) });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    expect((await call('POST', `/v1/review/items/${itemId}/redact`, {}, '', { cookie })).status).toBe(403);
    const outside = await call('POST', `/v1/review/items/${itemId}/redact`, { spans: [{ start: 0, end: LONG.length + 5 }] });
    expect(outside.status).toBe(400);
    expect(outside.body.message).toMatch(/not inside the text/);
    const all = await call('POST', `/v1/review/items/${itemId}/redact`, { spans: [{ start: 0, end: LONG.length }] });
    expect(all.status).toBe(400);
    expect(all.body.message).toMatch(/whole text/);
    expect((await call('POST', `/v1/review/items/${itemId}/redact`, { spans: [{ start: 'a', end: 3 }] })).status).toBe(400);
    // Nothing was written by the refused requests.
    expect((await db.query('SELECT count(*)::int AS n FROM "Document" WHERE "collection" = $1', [collection])).rows[0].n).toBe(TEXTS.length);
  });

  let versionId = '';
  it('redact: the stored span is replaced by the marker in a new version, embedded and served in place of the original, which Postgres keeps; audited', async () => {
    // /metrics reads the shared audit log (other test files may have redacted too): counted relative to before.
    const scrape = async () => (await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const sample = (text: string, series: string) => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.slice(series.length + 1) ?? 0);
    const BY_REASON = 'forensics_review_decisions_by_reason_total{action="redact",reason="planted-claim"}';
    const before = await scrape();
    const r = await call('POST', `/v1/review/items/${itemId}/redact`, { note: 'one planted sentence in a good article', reasons: ['planted-claim'] });
    expect(r.status).toBe(200);
    expect(r.body.changed).toBe(true);
    expect(r.body.item).toMatchObject({ state: 'QUARANTINED', decision: 'redact', reasons: ['planted-claim'] });
    versionId = r.body.redaction.documentId;
    expect(r.body.redaction).toMatchObject({ active: true, marker: REDACTION_MARKER, removedChars: PLANTED.length });
    const version = await docRow(versionId);
    expect(version.text).toBe(LONG.replace(PLANTED, REDACTION_MARKER));
    expect(version.text).not.toContain(WRONG);
    expect(version).toMatchObject({ status: 'ACTIVE', externalId: 'long', metadata: { redactionOf: longId } });
    const original = await docRow(longId);
    expect(original).toMatchObject({ text: LONG, status: 'QUARANTINED' });
    expect(version.textHash).not.toBe(original.textHash);
    // The store serves the version, not the original; the version's vector is the embedder's for its text.
    const ids = await served();
    expect(ids).toContain(versionId);
    expect(ids).not.toContain(longId);
    const [stored] = await t.store.fetch(collection, [versionId]);
    expect(stored.text).toBe(version.text);
    expect(stored.payload.redactionOf).toBe(longId);
    const [expected] = await t.embedder.embed([version.text]);
    expect(Array.from(stored.vector).map((x) => Math.round(x * 1e4))).toEqual(Array.from(expected).map((x) => Math.round(x * 1e4)));
    const audit = (await db.query(`SELECT "action", "details" FROM "AuditLog" WHERE "entityId" = $1 AND "action" = 'review.redacted'`, [itemId])).rows;
    expect(audit).toHaveLength(1);
    expect(audit[0].details).toMatchObject({ documentId: longId, redactedDocumentId: versionId, reasons: ['planted-claim'], from: 'QUARANTINED', to: 'QUARANTINED' });
    // Counted in /metrics like the other decisions, with its reason label.
    const after = await scrape();
    expect(sample(after, 'forensics_review_redactions_total')).toBe(sample(before, 'forensics_review_redactions_total') + 1);
    expect(sample(after, BY_REASON)).toBe(sample(before, BY_REASON) + 1);
    // The item page's data: the redaction with the served version's text.
    const detail = await call('GET', `/v1/review/items/${itemId}`);
    expect(detail.body.text).toBe(LONG);
    expect(detail.body.redaction).toMatchObject({ documentId: versionId, served: true, text: version.text });
    // The same request again changes nothing (and would complete a half-done store side).
    const again = await call('POST', `/v1/review/items/${itemId}/redact`, {});
    expect(again.status).toBe(200);
    expect(again.body.changed).toBe(false);
    expect((await db.query('SELECT count(*)::int AS n FROM "Document" WHERE "collection" = $1', [collection])).rows[0].n).toBe(TEXTS.length + 1);
  });

  it('the traceback treats the redacted text as a new version: judged afresh (no cached verdict), and it no longer states the answer', async () => {
    const { event } = await t.get(SubmitFeedbackUseCase).execute({ collection, query: QUERY, wrongAnswer: WRONG });
    await t.get(RunTracebackUseCase).execute({ feedbackId: event.id });
    const v = (await t.repos.verdicts.list(event.id)).find((x) => x.documentId === versionId);
    expect(v).toBeDefined();
    expect(v!.cached).toBe(false);
    expect(v!.label).toBe('NO');
    expect((await t.repos.verdicts.list(event.id)).some((x) => x.documentId === longId)).toBe(false);
  }, 120_000);

  it('restore reverses it: the original served again, the version withdrawn (kept in Postgres), audited', async () => {
    const r = await call('POST', `/v1/review/items/${itemId}/decision`, { action: 'restore', note: 'the claim is right after all' });
    expect(r.status).toBe(200);
    expect(r.body.state).toBe('RESTORED');
    expect(await docRow(longId)).toMatchObject({ status: 'ACTIVE', text: LONG });
    expect((await docRow(versionId)).status).toBe('QUARANTINED');
    const ids = await served();
    expect(ids).toContain(longId);
    expect(ids).not.toContain(versionId);
    const detail = await call('GET', `/v1/review/items/${itemId}`);
    expect(detail.body.redaction).toMatchObject({ documentId: versionId, active: false, served: false });
    const restored = (await db.query(`SELECT "details" FROM "AuditLog" WHERE "entityId" = $1 AND "action" = 'quarantine.restored'`, [itemId])).rows;
    expect(restored[0].details.withdrewRedaction).toBe(versionId);
    // A decision that withdrew a redaction is not undone; the redaction before it was decided since: refused.
    expect((await call('POST', '/v1/review/undo', { id: itemId })).status).toBe(409);
  });

  it('undo my last decision reverses a redaction: the version withdrawn (kept in Postgres), the item as before it, audited', async () => {
    const { coll, original, item } = await tracedInNewCollection('redact-undo');
    const red = await call('POST', `/v1/review/items/${item.id}/redact`, { reasons: ['planted-claim'] });
    expect(red.status).toBe(200);
    const version = red.body.redaction.documentId;
    const servedIn = async () => (await t.store.search(coll, { vector: (await t.embedder.embed([QUERY]))[0], k: 10 })).map((h) => h.id);
    expect(await servedIn()).toContain(version);

    const undone = await call('POST', '/v1/review/undo', { id: item.id });
    expect(undone.status).toBe(200);
    expect(undone.body.undid.action).toBe('review.redacted');
    expect(undone.body.item).toMatchObject({ id: item.id, state: item.state, decision: item.decision, reasons: [] });
    expect((await docRow(version)).status).toBe('QUARANTINED');
    expect(await docRow(original)).toMatchObject({ text: LONG, status: 'QUARANTINED' });
    const ids = await servedIn();
    expect(ids).not.toContain(version);
    expect(ids).not.toContain(original);
    const detail = await call('GET', `/v1/review/items/${item.id}`);
    expect(detail.body.redaction).toMatchObject({ documentId: version, active: false, served: false });
    const audit = (await db.query(`SELECT "details" FROM "AuditLog" WHERE "entityId" = $1 AND "action" = 'review.undone'`, [item.id])).rows;
    expect(audit).toHaveLength(1);
    expect(audit[0].details).toMatchObject({ undoneAction: 'review.redacted', from: 'QUARANTINED', to: item.state });
    // Nothing left to undo on it.
    expect((await call('POST', '/v1/review/undo', { id: item.id })).status).toBe(404);
  }, 180_000);

  it('a crash between the Postgres step and the store write is completed by the sync of unsynced records (the reconcile audit), not only by repeating the request', async () => {
    const { coll, original, item, feedbackId } = await tracedInNewCollection('redact-crash');
    const red = await call('POST', `/v1/review/items/${item.id}/redact`, {});
    expect(red.status).toBe(200);
    const version = red.body.redaction.documentId;
    // The state a crash right after the transaction leaves: the version's point never written, the record unsynced.
    await t.store.delete(coll, [version]);
    await db.query('UPDATE "QuarantineRecord" SET "storeSynced" = false WHERE "id" = $1', [item.id]);
    const servedIn = async () => (await t.store.search(coll, { vector: (await t.embedder.embed([QUERY]))[0], k: 10 })).map((h) => h.id);
    expect(await servedIn()).not.toContain(version);
    expect(await t.get(SyncQuarantinesUseCase).execute({ feedbackId })).toBe(1);
    const ids = await servedIn();
    expect(ids).toContain(version);
    expect(ids).not.toContain(original);
    const [stored] = await t.store.fetch(coll, [version]);
    expect(stored).toMatchObject({ text: (await docRow(version)).text, quarantined: false, payload: expect.objectContaining({ redactionOf: original }) });
    expect((await db.query('SELECT "storeSynced" FROM "QuarantineRecord" WHERE "id" = $1', [item.id])).rows[0].storeSynced).toBe(true);
  }, 180_000);
});
