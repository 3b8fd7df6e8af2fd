/**
 * The reviewer's workflow endpoints (issue 35) on the real service (Postgres, Redis, HTTP server):
 * reason labels (configured list, refused when unknown, stored, audit-log and queue filters, CSV
 * export, /metrics counts by label), "undo my last decision" (audited, refused when someone decided
 * the item since), the progress counts and "next item I can decide" (skips items claimed by others
 * and decided ones). Items are seeded straight into Postgres by scripts/seed-review.ts.
 */
import { Client } from 'pg';
import { seedReview } from '../scripts/seed-review';
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

const METRICS_TOKEN = 'review-workflow-metrics-token-0123';

describe('review workflow: reasons, undo, progress, next', () => {
  let app: TestApp;
  let db: Client;
  const keys: Record<'ann' | 'ben' | 'viewer', { key: string; name: string }> = {} as never;
  const collection = uniqueName('rw');
  let ids: string[] = [];
  const call = async (method: string, path: string, key: string | null = TEST_API_KEY, body?: unknown) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key) headers['x-api-key'] = key;
    const res = await fetch(app.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: any = text;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* CSV */ }
    return { status: res.status, body: parsed };
  };
  const sample = (text: string, series: string): number | null => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line ? Number(line.slice(series.length + 1)) : null;
  };
  const scrape = async () => (await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();

  beforeAll(async () => {
    // A custom list: the configured labels are what the API accepts.
    app = await createTestApp({ api: true, env: { METRICS_TOKEN, REVIEW_REASONS: 'planted-claim=Planted claim;outdated-genuine=Outdated but genuine;duplicate=Duplicate of a decided text' } });
    db = new Client({ connectionString: app.config.databaseUrl });
    await db.connect();
    for (const [k, role] of [['ann', 'reviewer'], ['ben', 'reviewer'], ['viewer', 'viewer']] as const) {
      const name = uniqueName(k);
      const r = await call('POST', '/v1/admin/keys', TEST_API_KEY, { name, role });
      expect(r.status).toBe(201);
      keys[k] = { key: r.body.key, name };
    }
    ids = (await seedReview(db, { items: 12, collection, seed: 3, state: 'NEEDS_REVIEW' })).ids;
  });
  afterAll(async () => {
    await db?.end();
    await app?.close();
  });

  it('reason labels: listed with shortcuts, unknown refused, stored, filterable, exported, counted in /metrics', async () => {
    const list = await call('GET', '/v1/review/reasons', keys.viewer.key);
    expect(list.status).toBe(200);
    expect(list.body.reasons).toEqual([
      { key: 'planted-claim', label: 'Planted claim', shortcut: '1' },
      { key: 'outdated-genuine', label: 'Outdated but genuine', shortcut: '2' },
      { key: 'duplicate', label: 'Duplicate of a decided text', shortcut: '3' },
    ]);
    const metricsBefore = sample(await scrape(), 'forensics_review_decisions_by_reason_total{action="approve",reason="planted-claim"}') ?? 0;
    const bad = await call('POST', `/v1/review/items/${ids[0]}/decision`, keys.ann.key, { action: 'approve', reasons: ['judge-misread'] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('judge-misread');
    expect((await call('POST', `/v1/review/items/${ids[0]}/decision`, keys.ann.key, { action: 'approve', reasons: ['Not A Key'] })).status).toBe(400);
    const ok = await call('POST', `/v1/review/items/${ids[0]}/decision`, keys.ann.key, { action: 'approve', reasons: ['duplicate', 'planted-claim', 'duplicate'] });
    expect(ok.status).toBe(200);
    // De-duplicated, in the configured order.
    expect(ok.body.reasons).toEqual(['planted-claim', 'duplicate']);
    const filtered = await call('GET', `/v1/review/items?collection=${collection}&state=QUARANTINED&reason=duplicate`);
    expect(filtered.body.items.map((i: any) => i.id)).toEqual([ids[0]]);
    const audit = await call('GET', `/v1/review/audit-log?reason=planted-claim&entityId=${ids[0]}`);
    expect(audit.body.entries).toHaveLength(1);
    expect(audit.body.entries[0].details.reasons).toEqual(['planted-claim', 'duplicate']);
    const csv = await call('GET', `/v1/review/export?what=decisions&format=csv&collection=${collection}`);
    const [head, row] = (csv.body as string).trim().split('\r\n');
    const cols = head.split(',');
    expect(row.split(',')[cols.indexOf('reasons')]).toBe('planted-claim;duplicate');
    const after = sample(await scrape(), 'forensics_review_decisions_by_reason_total{action="approve",reason="planted-claim"}');
    expect(after).toBe(metricsBefore + 1);
  });

  it('undo: my last decision reversed and audited; someone else\'s later decision blocks it; a viewer may not', async () => {
    const [, a, b] = ids;
    expect((await call('POST', '/v1/review/undo', keys.viewer.key, {})).status).toBe(403);
    expect((await call('POST', `/v1/review/items/${a}/decision`, keys.ann.key, { action: 'restore', reasons: ['outdated-genuine'] })).status).toBe(200);
    const undone = await call('POST', '/v1/review/undo', keys.ann.key, {});
    expect(undone.status).toBe(200);
    expect(undone.body.item).toMatchObject({ id: a, state: 'NEEDS_REVIEW', decision: null, reasons: [] });
    expect(undone.body.undid.action).toBe('quarantine.restored');
    const history = await call('GET', `/v1/review/audit-log?entityId=${a}`);
    expect(history.body.entries.map((e: any) => e.action)).toEqual(['review.undone', 'quarantine.restored', 'review.requested']);
    const undos = sample(await scrape(), 'forensics_review_undos_total');
    expect(undos).toBeGreaterThanOrEqual(1);

    // ann approves b, ben restores it afterwards: ann's undo of b is refused, b stays as ben left it.
    expect((await call('POST', `/v1/review/items/${b}/decision`, keys.ann.key, { action: 'approve' })).status).toBe(200);
    expect((await call('POST', `/v1/review/items/${b}/decision`, keys.ben.key, { action: 'restore' })).status).toBe(200);
    const refused = await call('POST', '/v1/review/undo', keys.ann.key, { id: b });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(keys.ben.name);
    const [row] = (await db.query('SELECT "state"::text AS state, "resolvedBy" FROM "QuarantineRecord" WHERE "id" = $1', [b])).rows;
    expect(row.state).toBe('RESTORED');
    expect(row.resolvedBy).toContain(keys.ben.name);
    expect((await call('POST', '/v1/review/undo', keys.ann.key, { id: 'not-a-uuid' })).status).toBe(400);
  });

  it('progress and next: counts by me / the team today, left in the filter; next skips claimed and decided items', async () => {
    const q = `collection=${collection}&state=NEEDS_REVIEW,QUARANTINED&sort=age`;
    const p0 = await call('GET', `/v1/review/progress?${q}`, keys.ann.key);
    expect(p0.status).toBe(200);
    const undecided = Number((await db.query('SELECT count(*) FROM "QuarantineRecord" WHERE "collection" = $1 AND "decision" IS NULL AND "state" IN (\'NEEDS_REVIEW\', \'QUARANTINED\')', [collection])).rows[0].count);
    expect(p0.body.left).toBe(undecided);
    // ann: approve (kept), restore + undo (net 0), approve (refused undo) → 2; ben: 1.
    expect(p0.body.decidedByMe).toBe(2);
    expect(p0.body.decidedByTeam).toBeGreaterThanOrEqual(3);
    const pBen = await call('GET', `/v1/review/progress?${q}`, keys.ben.key);
    expect(pBen.body.decidedByMe).toBe(1);

    // Order by age: ids are created in order; ann claims the first undecided one, ben's next skips it.
    const open = (await call('GET', `/v1/review/items?${q}&decided=false&limit=50`)).body.items.map((i: any) => i.id);
    expect(open.length).toBeGreaterThanOrEqual(3);
    expect((await call('POST', `/v1/review/items/${open[1]}/claim`, keys.ann.key)).status).toBe(200);
    const next = await call('GET', `/v1/review/next?${q}&after=${open[0]}`, keys.ben.key);
    expect(next.status).toBe(200);
    expect(next.body.item.id).toBe(open[2]);
    // ann holds it herself: her next is it.
    expect((await call('GET', `/v1/review/next?${q}&after=${open[0]}`, keys.ann.key)).body.item.id).toBe(open[1]);
    // Decided items are skipped; from the last one it wraps to the start.
    const wrap = await call('GET', `/v1/review/next?${q}&after=${open[open.length - 1]}`, keys.ben.key);
    expect(wrap.body).toMatchObject({ item: { id: open[0] }, wrapped: true });
    const pAnn = await call('GET', `/v1/review/progress?${q}`, keys.ann.key);
    const pB = await call('GET', `/v1/review/progress?${q}`, keys.ben.key);
    expect(pAnn.body.leftForMe).toBe(pAnn.body.left);
    expect(pB.body.leftForMe).toBe(pB.body.left - 1);
  });

  it('bulk decisions carry reason labels too: stored on every item, audited, counted; an unknown label refuses the request', async () => {
    const picked = ids.slice(8, 11);
    const bad = await call('POST', '/v1/review/bulk', keys.ann.key, { action: 'approve', ids: picked, requestId: uniqueName('bulkr'), reasons: ['judge-misread'] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('judge-misread');
    const undecided = await db.query(`SELECT count(*)::int AS n FROM "QuarantineRecord" WHERE "id" = ANY($1::uuid[]) AND "decision" IS NULL`, [picked]);
    expect(undecided.rows[0].n).toBe(3);
    const before = sample(await scrape(), 'forensics_review_decisions_by_reason_total{action="approve",reason="duplicate"}') ?? 0;
    const ok = await call('POST', '/v1/review/bulk', keys.ann.key, { action: 'approve', ids: picked, requestId: uniqueName('bulkr'), reasons: ['duplicate'] });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ matched: 3, changed: 3 });
    const stored = await db.query(`SELECT "reasons" FROM "QuarantineRecord" WHERE "id" = ANY($1::uuid[])`, [picked]);
    expect(stored.rows.map((r) => r.reasons)).toEqual([['duplicate'], ['duplicate'], ['duplicate']]);
    const audit = await call('GET', `/v1/review/audit-log?reason=duplicate&entityId=${picked[0]}`);
    expect(audit.body.entries[0].details.reasons).toEqual(['duplicate']);
    expect(sample(await scrape(), 'forensics_review_decisions_by_reason_total{action="approve",reason="duplicate"}')).toBe(before + 3);
  });
});
