/**
 * The review API (issue 11, docs/review-api.md) on the real service: Postgres, Redis, the HTTP
 * server, the embedded vector store. Items are seeded straight into Postgres by
 * scripts/seed-review.ts (thousands, for pagination), or made through the ingest API (for the
 * store side of decisions). Keys of each role are created through the admin API.
 */
import { Client } from 'pg';
import type { QuarantineEvidence } from '@forensics/core';
import { seedReview } from '../scripts/seed-review';
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

const EVIDENCE: QuarantineEvidence = {
  policy: { name: 'judge-only', decision: 'QUARANTINE', withhold: true, reason: 'test', inputs: {} },
  judge: { kind: 'scripted', model: 'm', promptVersion: 'v1', label: 'YES', reply: '[Label: Yes]', signals: null },
  retrieval: null,
  retrieverEvidence: null,
};

describe('review API', () => {
  let app: TestApp;
  let db: Client;
  const keys: Record<'reviewer' | 'reviewer2' | 'viewer', { key: string; name: string }> = {} as never;
  const call = async (method: string, path: string, key: string | null = TEST_API_KEY, body?: unknown) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key) headers['x-api-key'] = key;
    const res = await fetch(app.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: any = text;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* CSV / JSONL */ }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  const seeded = uniqueName('rv');
  let seededIds: string[] = [];

  beforeAll(async () => {
    app = await createTestApp({ api: true });
    db = new Client({ connectionString: app.config.databaseUrl });
    await db.connect();
    for (const [k, role] of [['reviewer', 'reviewer'], ['reviewer2', 'reviewer'], ['viewer', 'viewer']] as const) {
      const name = uniqueName(k);
      const r = await call('POST', '/v1/admin/keys', TEST_API_KEY, { name, role });
      expect(r.status).toBe(201);
      keys[k] = { key: r.body.key, name };
    }
    seededIds = (await seedReview(db, { items: 3000, collection: seeded, seed: 7 })).ids;
  });
  afterAll(async () => {
    await db?.end();
    await app?.close();
  });

  /** Every id of the list, walking nextCursor; asserts page sizes and that the cursor ends. */
  async function walk(query: string, limit: number): Promise<{ ids: string[]; first: any }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let first: any = null;
    for (let pages = 0; pages < 1000; pages++) {
      const r = await call('GET', `/v1/review/items?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(r.status).toBe(200);
      first ??= r.body;
      ids.push(...r.body.items.map((i: any) => i.id));
      cursor = r.body.nextCursor;
      if (!cursor) return { ids, first };
      expect(r.body.items).toHaveLength(limit);
    }
    throw new Error('cursor never ended');
  }

  const sqlIds = async (where: string, order: string, params: unknown[] = []) =>
    (await db.query(`SELECT r."id" FROM "QuarantineRecord" r JOIN "Document" d ON d."id" = r."documentId" WHERE r."collection" = $1 AND ${where} ORDER BY ${order}`, [seeded, ...params])).rows.map((r) => r.id);

  it('keyset pagination returns every matching item exactly once, in each sort order', async () => {
    const all = 'state=NEEDS_REVIEW,QUARANTINED,RESTORED,PURGED';
    const risk = await walk(`collection=${seeded}&${all}&sort=risk`, 173);
    expect(risk.ids).toHaveLength(3000);
    expect(new Set(risk.ids).size).toBe(3000);
    expect(risk.ids).toEqual(await sqlIds('TRUE', 'COALESCE(r."suspicion", -1) DESC, r."createdAt" DESC, r."id" DESC'));
    const age = await walk(`collection=${seeded}&${all}&sort=age`, 200);
    expect(age.ids).toEqual(await sqlIds('TRUE', 'r."createdAt" ASC, r."id" ASC'));
    const newest = await walk(`collection=${seeded}&${all}&sort=newest`, 200);
    expect(newest.ids).toEqual([...age.ids].reverse());
    expect(new Set(risk.ids)).toEqual(new Set(seededIds));
    // The counts per state and the total of the full filter.
    const byState = (await db.query(`SELECT "state"::text AS s, count(*)::int AS n FROM "QuarantineRecord" WHERE "collection" = $1 GROUP BY 1`, [seeded])).rows;
    for (const { s, n } of byState) expect(risk.first.counts[s]).toBe(n);
    expect(risk.first.total).toBe(3000);
    // Default states: NEEDS_REVIEW + QUARANTINED; counts are still of every state.
    const def = await walk(`collection=${seeded}`, 200);
    expect(def.ids).toEqual(await sqlIds(`r."state" IN ('NEEDS_REVIEW', 'QUARANTINED')`, 'COALESCE(r."suspicion", -1) DESC, r."createdAt" DESC, r."id" DESC'));
    expect(def.first.total).toBe(def.ids.length);
    expect(def.first.counts).toEqual(risk.first.counts);
  });

  it('filters: suspicion range, judge, text, dates, event, decided — exactly the SQL set', async () => {
    const base = `collection=${seeded}&state=NEEDS_REVIEW,QUARANTINED,RESTORED,PURGED&sort=age`;
    expect((await walk(`${base}&minSuspicion=0.3&maxSuspicion=0.6`, 200)).ids)
      .toEqual(await sqlIds(`r."suspicion" BETWEEN 0.3 AND 0.6`, 'r."createdAt", r."id"'));
    expect((await walk(`${base}&judge=openai`, 200)).ids).toEqual(await sqlIds(`r."judgeKind" = 'openai'`, 'r."createdAt", r."id"'));
    expect((await walk(`${base}&q=ITEM%20123`, 200)).ids).toEqual(await sqlIds(`d."text" ILIKE '%item 123%'`, 'r."createdAt", r."id"'));
    const from = new Date(Date.now() - 10 * 86_400_000).toISOString();
    const to = new Date(Date.now() - 3 * 86_400_000).toISOString();
    expect((await walk(`${base}&from=${from}&to=${to}`, 200)).ids)
      .toEqual(await sqlIds(`r."createdAt" >= $2::timestamp AND r."createdAt" < $3::timestamp`, 'r."createdAt", r."id"', [from, to]));
    const [one] = (await db.query(`SELECT "feedbackId" FROM "QuarantineRecord" WHERE "collection" = $1 LIMIT 1`, [seeded])).rows;
    const ev = await walk(`${base}&feedbackId=${one.feedbackId}`, 200);
    expect(ev.ids.length).toBeGreaterThan(0);
    expect(ev.ids).toEqual(await sqlIds(`r."feedbackId" = $2`, 'r."createdAt", r."id"', [one.feedbackId]));
    expect((await walk(`${base}&decided=false`, 200)).ids).toEqual(await sqlIds(`r."decision" IS NULL`, 'r."createdAt", r."id"'));
    // '%' and '_' are literal in q.
    expect((await call('GET', `/v1/review/items?${base}&q=${encodeURIComponent('%_')}`)).body.items).toEqual([]);
  });

  it('tabs: per state without the decided filter; open = undecided NEEDS_REVIEW and QUARANTINED (issue 54)', async () => {
    const count = async (where: string) => Number((await db.query(`SELECT count(*)::int AS n FROM "QuarantineRecord" r WHERE r."collection" = $1 AND ${where}`, [seeded])).rows[0].n);
    const open = await count(`r."state" IN ('NEEDS_REVIEW', 'QUARANTINED') AND r."decision" IS NULL`);
    const approved = await count(`r."state" = 'QUARANTINED' AND r."decision" IS NOT NULL`);
    expect(approved).toBeGreaterThan(0); // the seed decides some: the Open count must leave them out
    for (const q of ['', '&decided=false', '&decided=true']) {
      const r = await call('GET', `/v1/review/items?collection=${seeded}&limit=1${q}`);
      expect(r.body.tabs.open).toBe(open);
      expect(r.body.tabs.QUARANTINED).toBe(await count(`r."state" = 'QUARANTINED'`));
      expect(r.body.tabs.RESTORED).toBe(await count(`r."state" = 'RESTORED'`));
    }
  });

  it('bad input is a 400 naming the field; a cursor of another sort is refused', async () => {
    for (const [q, field] of [['state=NOPE', 'state'], ['minSuspicion=2', 'minSuspicion'], ['limit=500', 'limit'], ['sort=size', 'sort'], ['from=yesterday', 'from'], ['cursor=xyz', 'cursor']]) {
      const r = await call('GET', `/v1/review/items?${q}`);
      expect(r.status).toBe(400);
      expect(r.body.message).toContain(field);
    }
    const page = await call('GET', `/v1/review/items?collection=${seeded}&sort=age&limit=5`);
    const r = await call('GET', `/v1/review/items?collection=${seeded}&sort=risk&cursor=${page.body.nextCursor}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('cursor');
  });

  it('claims: a second reviewer gets 409 naming the holder, cannot decide; an admin overrides; claims expire by themselves', async () => {
    const [id] = seededIds.filter((_, i) => i % 10 === 3);
    const [row] = (await db.query(`SELECT "state"::text AS s FROM "QuarantineRecord" WHERE "id" = $1`, [id])).rows;
    await db.query(`UPDATE "QuarantineRecord" SET "state" = 'NEEDS_REVIEW', "decision" = NULL WHERE "id" = $1`, [id]);
    void row;
    const c1 = await call('POST', `/v1/review/items/${id}/claim`, keys.reviewer.key);
    expect(c1.status).toBe(200);
    expect(c1.body.claim.by).toContain(keys.reviewer.name);
    const until = Date.parse(c1.body.claim.until);
    expect(until - Date.now()).toBeGreaterThan(4 * 60_000);
    expect(until - Date.now()).toBeLessThanOrEqual(5 * 60_000 + 2000);
    // Renewal by the holder extends it.
    await new Promise((r) => setTimeout(r, 20));
    const renewed = await call('POST', `/v1/review/items/${id}/claim`, keys.reviewer.key);
    expect(Date.parse(renewed.body.claim.until)).toBeGreaterThan(until);

    const c2 = await call('POST', `/v1/review/items/${id}/claim`, keys.reviewer2.key);
    expect(c2.status).toBe(409);
    expect(c2.body.claim.by).toContain(keys.reviewer.name);
    const listed = (await call('GET', `/v1/review/items?collection=${seeded}&state=NEEDS_REVIEW&limit=200&q=${encodeURIComponent('')}`)).body.items;
    void listed;
    const d2 = await call('POST', `/v1/review/items/${id}/decision`, keys.reviewer2.key, { action: 'restore' });
    expect(d2.status).toBe(409);
    expect(d2.body.claim.by).toContain(keys.reviewer.name);
    expect((await db.query(`SELECT "state"::text AS s FROM "QuarantineRecord" WHERE "id" = $1`, [id])).rows[0].s).toBe('NEEDS_REVIEW');
    // The item shows the claim.
    expect((await call('GET', `/v1/review/items/${id}`, keys.viewer.key)).body.item.claim.by).toContain(keys.reviewer.name);

    // An admin overrides; the audit entry names whose claim was overridden.
    const admin = await call('POST', `/v1/review/items/${id}/decision`, TEST_API_KEY, { action: 'approve', note: 'admin override' });
    expect(admin.status).toBe(200);
    expect(admin.body).toMatchObject({ id, state: 'QUARANTINED', decision: 'approve', claim: null, note: 'admin override' });
    const audit = (await call('GET', `/v1/review/audit-log?entityId=${id}&action=review.approved`)).body.entries;
    expect(audit).toHaveLength(1);
    expect(audit[0].details.overrodeClaimOf).toContain(keys.reviewer.name);

    // Expiry: a claim past its time is nobody's.
    const [other] = seededIds.filter((_, i) => i % 10 === 5);
    expect((await call('POST', `/v1/review/items/${other}/claim`, keys.reviewer.key)).status).toBe(200);
    expect((await call('POST', `/v1/review/items/${other}/claim`, keys.reviewer2.key)).status).toBe(409);
    await db.query(`UPDATE "QuarantineRecord" SET "claimedUntil" = (now() AT TIME ZONE 'UTC') - interval '1 second' WHERE "id" = $1`, [other]);
    expect((await call('GET', `/v1/review/items/${other}`)).body.item.claim).toBeNull();
    const taken = await call('POST', `/v1/review/items/${other}/claim`, keys.reviewer2.key);
    expect(taken.status).toBe(200);
    expect(taken.body.claim.by).toContain(keys.reviewer2.name);
    // Release.
    expect((await call('DELETE', `/v1/review/items/${other}/claim`, keys.reviewer2.key)).status).toBe(200);
    expect((await call('GET', `/v1/review/items/${other}`)).body.item.claim).toBeNull();
  });

  it('roles: a viewer reads but gets 403 on decide, claim and bulk; a reviewer gets 403 on purge', async () => {
    const [id] = seededIds.filter((_, i) => i % 10 === 7);
    expect((await call('GET', `/v1/review/items/${id}`, keys.viewer.key)).status).toBe(200);
    for (const [m, p, b] of [
      ['POST', `/v1/review/items/${id}/decision`, { action: 'approve' }],
      ['POST', `/v1/review/items/${id}/claim`, undefined],
      ['POST', '/v1/review/bulk', { action: 'approve', ids: [id], requestId: uniqueName('req') }],
    ] as const) {
      const r = await call(m, p, keys.viewer.key, b);
      expect(r.status).toBe(403);
      expect(r.body.message).toContain('decide');
    }
    const [docId] = (await db.query(`SELECT "documentId" FROM "QuarantineRecord" WHERE "id" = $1`, [id])).rows.map((r) => r.documentId);
    const p = await call('POST', `/v1/review/items/${id}/decision`, keys.reviewer.key, { action: 'purge', confirm: docId });
    expect(p.status).toBe(403);
    expect(p.body.message).toContain('purge');
    expect((await db.query(`SELECT "state"::text AS s FROM "QuarantineRecord" WHERE "id" = $1`, [id])).rows[0].s).not.toBe('PURGED');
    expect((await call('GET', '/v1/review/items', null)).status).toBe(401);
  });

  it('console session: state-changing review calls need the CSRF token; the claim is held under the same name as with the key; in the OpenAPI document', async () => {
    const login = await fetch(`${app.url}/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: keys.reviewer.key }) });
    expect(login.status).toBeLessThan(300);
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const { csrfToken } = (await login.json()) as { csrfToken: string };
    const [id] = seededIds.filter((_, i) => i % 10 === 9);
    const withCookie = (method: string, path: string, csrf?: string) =>
      fetch(app.url + path, { method, headers: { cookie, 'content-type': 'application/json', ...(csrf ? { 'x-csrf-token': csrf } : {}) } });
    expect((await withCookie('GET', `/v1/review/items/${id}`)).status).toBe(200);
    expect((await withCookie('POST', `/v1/review/items/${id}/claim`)).status).toBe(403);
    const ok = await withCookie('POST', `/v1/review/items/${id}/claim`, csrfToken);
    expect(ok.status).toBe(200);
    const { claim } = (await ok.json()) as { claim: { by: string } };
    // The same reviewer through the API key renews the same claim (no 409 against themselves).
    const viaKey = await call('POST', `/v1/review/items/${id}/claim`, keys.reviewer.key);
    expect(viaKey.status).toBe(200);
    expect(viaKey.body.claim.by).toBe(claim.by);
    const openapi = (await (await fetch(`${app.url}/docs/openapi.json`)).json()) as { paths: Record<string, Record<string, any>> };
    for (const p of ['/v1/review/items', '/v1/review/items/{id}', '/v1/review/items/{id}/claim', '/v1/review/items/{id}/decision', '/v1/review/bulk', '/v1/review/events', '/v1/review/events/{id}', '/v1/review/audit-log', '/v1/review/export']) {
      expect(openapi.paths[p]).toBeDefined();
    }
    expect(openapi.paths['/v1/review/items'].get.parameters.map((x: any) => x.name)).toEqual(expect.arrayContaining(['state', 'q', 'minSuspicion', 'cursor', 'sort']));
  });

  it('bulk approve by filter applies to exactly the filtered 500, once; a retry with the same requestId changes nothing', async () => {
    const coll = uniqueName('bulk');
    const target = (await seedReview(db, { items: 500, collection: coll, seed: 11, state: 'NEEDS_REVIEW' })).ids;
    const others = (await seedReview(db, { items: 120, collection: coll, seed: 12, state: 'RESTORED' })).ids;
    const outside = (await seedReview(db, { items: 50, collection: uniqueName('bulk-other'), seed: 13, state: 'NEEDS_REVIEW' })).ids;
    const requestId = uniqueName('bulkreq');
    const body = { action: 'approve', filter: { collection: coll, state: 'NEEDS_REVIEW' }, requestId, note: 'campaign 42' };
    const t0 = Date.now();
    const r = await call('POST', '/v1/review/bulk', keys.reviewer.key, body);
    const ms = Date.now() - t0;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ requestId, matched: 500, changed: 500, skipped: 0 });
    process.stdout.write(`bulk approve of 500 items: ${ms} ms\n`);
    const states = async (ids: string[]) => (await db.query(`SELECT "state"::text AS s, "decision", "decisionRequestId" AS req, count(*)::int AS n FROM "QuarantineRecord" WHERE "id" = ANY($1::uuid[]) GROUP BY 1, 2, 3`, [ids])).rows;
    expect(await states(target)).toEqual([{ s: 'QUARANTINED', decision: 'approve', req: requestId, n: 500 }]);
    expect(await states(others)).toEqual([{ s: 'RESTORED', decision: 'restore', req: null, n: 120 }]);
    expect(await states(outside)).toEqual([{ s: 'NEEDS_REVIEW', decision: null, req: null, n: 50 }]);
    const auditCount = async () => (await db.query(`SELECT count(*)::int AS n FROM "AuditLog" WHERE "details"->>'requestId' = $1`, [requestId])).rows[0].n;
    expect(await auditCount()).toBe(500);

    // A new item matching the filter arrives; the retry returns the first result and touches nothing.
    const late = (await seedReview(db, { items: 1, collection: coll, seed: 14, state: 'NEEDS_REVIEW' })).ids;
    const again = await call('POST', '/v1/review/bulk', keys.reviewer.key, body);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ requestId, matched: 500, changed: 500, skipped: 0, replayed: true });
    expect(await auditCount()).toBe(500);
    expect(await states(late)).toEqual([{ s: 'NEEDS_REVIEW', decision: null, req: null, n: 1 }]);
    // The same requestId for another action is a conflict; a body without ids/filter a 400.
    expect((await call('POST', '/v1/review/bulk', keys.reviewer.key, { ...body, action: 'restore' })).status).toBe(409);
    const bad = await call('POST', '/v1/review/bulk', keys.reviewer.key, { action: 'approve', requestId: uniqueName('r') });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('ids');
    const notIds = await call('POST', '/v1/review/bulk', keys.reviewer.key, { action: 'approve', ids: ['x1'], requestId: uniqueName('r') });
    expect(notIds.status).toBe(400);
    expect(notIds.body.message).toContain('ids');
  });

  it('decisions on ingested texts: restore serves the text again, approve keeps it out, purge deletes the point and redacts the text', async () => {
    const coll = uniqueName('dec');
    const texts = ['Purge me: the capital of France is Lyon.', 'Restore me: water boils at 100 degrees Celsius at sea level.', 'Approve me: the moon is made of cheese.'];
    const ing = await call('POST', `/v1/collections/${coll}/documents`, TEST_API_KEY, { documents: texts.map((text, i) => ({ id: `t${i}`, text, metadata: { source: 'wiki', i } })) });
    expect(ing.status).toBe(200);
    const docs = new Map((await app.prisma.document.findMany({ where: { collection: coll } })).map((d) => [d.externalId, d]));
    const recs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { record } = await app.repos.quarantines.create({ state: 'QUARANTINED', documentId: docs.get(`t${i}`)!.id, feedbackId: null, collection: coll, reason: 'test', evidence: EVIDENCE, policy: 'judge-only', createdBy: 'test' });
      await app.store.setQuarantined(coll, [record.documentId], true);
      await app.repos.quarantines.markSynced(record.id);
      recs.push(record.id);
    }
    const [purgeId, restoreId, approveId] = recs;
    const [purgeDoc, restoreDoc, approveDoc] = [0, 1, 2].map((i) => docs.get(`t${i}`)!);

    // Purge: admin only, typed confirmation.
    const noConfirm = await call('POST', `/v1/review/items/${purgeId}/decision`, TEST_API_KEY, { action: 'purge' });
    expect(noConfirm.status).toBe(400);
    expect(noConfirm.body.message).toContain('confirm');
    const purged = await call('POST', `/v1/review/items/${purgeId}/decision`, TEST_API_KEY, { action: 'purge', confirm: purgeDoc.id, note: 'legal request' });
    expect(purged.status).toBe(200);
    expect(purged.body).toMatchObject({ state: 'PURGED', decision: 'purge' });
    expect(await app.store.fetch(coll, [purgeDoc.id])).toEqual([]);
    const after = await app.prisma.document.findUniqueOrThrow({ where: { id: purgeDoc.id } });
    expect(after).toMatchObject({ status: 'PURGED', textHash: purgeDoc.textHash, externalId: 't0', metadata: { source: 'wiki', i: 0 } });
    expect(after.text).not.toContain('Lyon');
    expect((await call('GET', `/v1/review/items/${purgeId}`)).body.text).not.toContain('Lyon');
    expect((await call('GET', `/v1/review/audit-log?entityId=${purgeId}`)).body.entries.map((e: any) => e.action)).toContain('quarantine.purged');
    // Irreversible: restoring a purged item is a conflict.
    expect((await call('POST', `/v1/review/items/${purgeId}/decision`, TEST_API_KEY, { action: 'restore' })).status).toBe(409);
    // Re-ingesting the purged text does not bring it back.
    await call('POST', `/v1/collections/${coll}/documents`, TEST_API_KEY, { documents: [{ text: texts[0] }] });
    expect(await app.store.fetch(coll, [purgeDoc.id])).toEqual([]);

    // Restore: served again exactly as it was (same vector, text and payload).
    const [beforeRestore] = await app.store.fetch(coll, [restoreDoc.id]);
    expect(beforeRestore.quarantined).toBe(true);
    const restored = await call('POST', `/v1/review/items/${restoreId}/decision`, keys.reviewer.key, { action: 'restore', note: 'false positive' });
    expect(restored.status).toBe(200);
    const [afterRestore] = await app.store.fetch(coll, [restoreDoc.id]);
    expect(afterRestore).toEqual({ ...beforeRestore, quarantined: false });
    const hits = await app.store.search(coll, { vector: afterRestore.vector, k: 1 });
    expect(hits[0].id).toBe(restoreDoc.id);

    // Approve a judge-quarantined item: the decision is recorded, the text stays out.
    const approved = await call('POST', `/v1/review/items/${approveId}/decision`, keys.reviewer.key, { action: 'approve' });
    expect(approved.body).toMatchObject({ state: 'QUARANTINED', decision: 'approve' });
    expect(approved.body.decidedBy).toContain(keys.reviewer.name);
    expect((await app.store.fetch(coll, [approveDoc.id]))[0].quarantined).toBe(true);

    // Near-duplicates: by the text's own vector in its collection, itself excluded, quarantined neighbours included
    // (with their status), the purged one gone from the store.
    const near = (await call('GET', `/v1/review/items/${restoreId}`, keys.viewer.key)).body.nearDuplicates;
    expect(near.map((n: any) => n.documentId)).toEqual([approveDoc.id]);
    expect(near[0]).toMatchObject({ state: 'QUARANTINED', textPreview: texts[2] });
    expect(near[0].similarity).toBeGreaterThan(-1);

    // The answer the user was served comes from the answer log (feedback by token on a logged answer).
    const answer = await app.repos.answers.create({ collection: coll, query: 'is the moon cheese', answer: 'Yes, the moon is made of cheese.', servedIds: [approveDoc.id], servedScores: [0.9], source: 'external', generatorKind: null, generatorModel: null, promptVersion: null, embedder: null });
    const { event } = await app.repos.feedback.create({ collection: coll, query: 'is the moon cheese', wrongAnswer: 'yes', k: 5, answerId: answer.id, reporter: 'user-7' });
    const { record: fromAnswer } = await app.repos.quarantines.create({ state: 'NEEDS_REVIEW', documentId: restoreDoc.id, feedbackId: event.id, collection: coll, reason: 'test', evidence: EVIDENCE, policy: 'judge-only', createdBy: 'test' });
    const withAnswer = (await call('GET', `/v1/review/items/${fromAnswer.id}`)).body;
    expect(withAnswer.feedback).toMatchObject({ id: event.id, servedAnswer: 'Yes, the moon is made of cheese.', answerId: answer.id, reporter: 'user-7', query: 'is the moon cheese' });
    expect(withAnswer.verdict).toMatchObject({ label: 'YES', judgeKind: 'scripted', reply: '[Label: Yes]' });
  });

  it('item detail, events and export (CSV formula-safe, JSONL)', async () => {
    const [id] = seededIds;
    const d = await call('GET', `/v1/review/items/${id}`, keys.viewer.key);
    expect(d.status).toBe(200);
    expect(d.body.item.id).toBe(id);
    // Issue 54: the text named as the app names it, on the item and on the event's candidates (seeded without metadata).
    const ext = (await db.query('SELECT "externalId" FROM "Document" WHERE "id" = $1', [d.body.item.documentId])).rows[0].externalId;
    expect(ext).toBeTruthy();
    expect(d.body.item.externalId).toBe(ext);
    expect(d.body.item.metadata).toBeNull();
    expect(d.body.evidence.candidates.every((c: any) => typeof c.externalId === 'string')).toBe(true);
    expect(typeof d.body.text).toBe('string');
    expect(d.body.feedback.query).toBe(d.body.item.query);
    expect(d.body.verdict.reply.length).toBeGreaterThan(0);
    expect(d.body.evidence.thisText.bird.suspicion).toBeGreaterThanOrEqual(0);
    expect(d.body.evidence.candidates.length).toBeGreaterThanOrEqual(1);
    expect(d.body.siblings.every((s: any) => s.feedbackId === d.body.item.feedbackId && s.id !== id)).toBe(true);
    expect(d.body.history.map((h: any) => h.action)).toContain(d.body.item.state === 'NEEDS_REVIEW' ? 'review.requested' : 'quarantine.created');
    expect((await call('GET', '/v1/review/items/00000000-0000-4000-8000-000000000000')).status).toBe(404);

    const ev = await call('GET', `/v1/review/events?collection=${seeded}&limit=3`);
    expect(ev.body.events).toHaveLength(3);
    expect(ev.body.events[0].verdicts.YES + ev.body.events[0].verdicts.UNDETERMINED).toBeGreaterThan(0);
    const next = await call('GET', `/v1/review/events?collection=${seeded}&limit=3&cursor=${ev.body.nextCursor}`);
    expect(next.body.events.map((e: any) => e.id)).not.toContain(ev.body.events[2].id);
    const one = await call('GET', `/v1/review/events/${d.body.item.feedbackId}`);
    expect(one.body.items.map((i: any) => i.id)).toContain(id);

    // Formula injection: a query and a note that start with = / + / - / @.
    await db.query(`UPDATE "FeedbackEvent" SET "query" = '=HYPERLINK("http://evil","x")', "wrongAnswer" = '+1,2' WHERE "id" = $1`, [d.body.item.feedbackId]);
    await db.query(`UPDATE "QuarantineRecord" SET "note" = '@SUM(A1)', "decision" = 'approve', "resolvedBy" = '-cmd' WHERE "id" = $1`, [id]);
    const csv = await call('GET', `/v1/review/export?what=decisions&format=csv&collection=${seeded}&feedbackId=${d.body.item.feedbackId}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = (csv.body as string).trim().split('\r\n');
    expect(lines[0]).toBe('id,state,collection,documentId,feedbackId,query,wrongAnswer,judgeKind,judgeLabel,suspicion,createdAt,decision,decidedBy,decidedAt,note,reasons,textPreview,externalId,metadata');
    const row = lines.find((l) => l.startsWith(id))!;
    expect(row.endsWith(`,${ext},`)).toBe(true);
    expect(row).toContain(`"'=HYPERLINK(""http://evil"",""x"")"`);
    expect(row).toContain(`"'+1,2"`);
    expect(row).toContain(`,'@SUM(A1),`);
    expect(row).toContain(`,'-cmd,`);
    const jsonl = await call('GET', `/v1/review/export?what=queue&format=jsonl&collection=${seeded}&state=NEEDS_REVIEW,QUARANTINED,RESTORED,PURGED`);
    const parsed = (jsonl.body as string).trim().split('\n').map((l) => JSON.parse(l));
    expect(parsed).toHaveLength(3000);
    expect(parsed.find((p) => p.id === id).query).toBe('=HYPERLINK("http://evil","x")');
    expect((await call('GET', '/v1/review/export?format=xls')).status).toBe(400);
  });
});
