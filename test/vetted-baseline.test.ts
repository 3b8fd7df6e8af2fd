/**
 * A collection's vetted baseline (issue 33, decision 0320) through the whole pipeline on real parts: HTTP API +
 * worker (BullMQ on Redis) + Postgres + the embedded vector store + USE-lite and the offline judge.
 *
 * - only an admin sets it (a reviewer and a service key get 403); a future cutoff, a bad instant and an unknown
 *   collection are refused with a clear message; every change is in the audit log;
 * - an identified false report against texts of the baseline takes none of them out of serving: their YES verdicts
 *   go to review, kept served — the same texts without a baseline are quarantined by the same report;
 * - texts planted after the cutoff are decided as usual: a true report quarantines them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForensicsApiError, ForensicsClient } from '@forensics/client';
import { createTestApp, type TestApp } from './support/test-app';
import { OTHER, PLANTED, QUERY, STORY } from './support/saint-ilsa-fixture';
import { eventually, ROOT, TEST_API_KEY, uniqueName } from './support/test-runtime';

// STORY: one story repeated five times, alike enough that the consensus check takes it for one voice (no false-flag
// protection); OTHER: other texts of the chapel; PLANTED: a planted group.
type Json = Record<string, any>;

describe('vetted baseline: texts an operator vouches for never leave serving on a report alone', () => {
  let t: TestApp;
  const vetted = uniqueName('vet-on');
  const plain = uniqueName('vet-off');
  let serviceKey = '';
  let reviewerKey = '';

  const call = async (method: string, path: string, body?: unknown, key = TEST_API_KEY) => {
    const r = await fetch(t.url + path, { method, headers: { 'content-type': 'application/json', 'x-api-key': key }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, body: (await r.json().catch(() => ({}))) as Json };
  };
  const ingest = async (collection: string, docs: readonly string[], prefix: string) => {
    const r = await call('POST', `/v1/collections/${collection}/documents`, { documents: docs.map((text, i) => ({ id: `${prefix}${i}`, text })) });
    expect(r.status).toBe(200);
  };
  const report = async (collection: string, wrongAnswer: string, reporter: string) => {
    const r = await call('POST', '/v1/feedback', { collection, query: QUERY, wrongAnswer, reporter }, serviceKey);
    expect(r.status).toBe(202);
    const f = await eventually(async () => {
      const g = await call('GET', `/v1/feedback/${r.body.id}`);
      return g.body.trace?.outcome ? g.body : null;
    }, 180_000);
    return { id: r.body.id as string, f };
  };
  const idsOf = async (collection: string, prefix: string) =>
    new Set((await t.prisma.document.findMany({ where: { collection, externalId: { startsWith: prefix } } })).map((d) => d.id));

  beforeAll(async () => {
    t = await createTestApp({ api: true, worker: true, env: { TRACE_K: '5', SWEEP_EVERY_MS: '1000', JUDGE_MODEL: uniqueName('vet-judge') } });
    await ingest(vetted, [...STORY, ...OTHER], 'b');
    await ingest(plain, [...STORY, ...OTHER], 'b');
    const k = await call('POST', '/v1/admin/keys', { name: uniqueName('vet-backend'), scopes: ['feedback', 'ingest'] });
    expect(k.status).toBe(201);
    serviceKey = k.body.key;
    const rv = await call('POST', '/v1/admin/keys', { name: uniqueName('vet-reviewer'), role: 'reviewer' });
    expect(rv.status).toBe(201);
    reviewerKey = rv.body.key;
  }, 180_000);
  afterAll(async () => { await t?.close(); });

  it('only an admin sets the cutoff; bad input is refused with a clear message; the change is audit-logged', async () => {
    const path = `/v1/collections/${vetted}/vetted-before`;
    expect((await call('PUT', path, {}, reviewerKey)).status).toBe(403);
    expect((await call('PUT', path, {}, serviceKey)).status).toBe(403);
    const future = await call('PUT', path, { before: new Date(Date.now() + 86_400_000).toISOString() });
    expect(future.status).toBe(400);
    expect(JSON.stringify(future.body)).toMatch(/in the future/);
    const bad = await call('PUT', path, { before: 'yesterday' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/ISO-8601/);
    expect((await call('PUT', path, { before: null, extra: 1 })).status).toBe(400);
    expect((await call('PUT', `/v1/collections/${uniqueName('nope')}/vetted-before`, {})).status).toBe(404);
    expect((await t.prisma.collection.findUnique({ where: { name: vetted } }))!.vettedBefore).toBeNull();

    const set = await call('PUT', path, {}); // now: every text registered so far is vouched for
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ name: vetted, vettedTexts: STORY.length + OTHER.length });
    expect(Date.parse(set.body.vettedBefore)).toBeLessThanOrEqual(Date.now());
    expect((await call('GET', `/v1/collections/${vetted}`)).body.vettedBefore).toBe(set.body.vettedBefore);
    const listed = await call('GET', '/v1/collections', undefined, reviewerKey);
    expect(listed.status).toBe(200);
    expect(listed.body.items.find((c: Json) => c.name === vetted)).toEqual({ name: vetted, embedder: expect.any(String), dimension: expect.any(Number), documents: STORY.length + OTHER.length, vettedBefore: set.body.vettedBefore });
    expect((await fetch(`${t.url}/v1/collections`)).status).toBe(401);
    const log = await t.prisma.auditLog.findMany({ where: { entityType: 'Collection', entityId: vetted, action: { startsWith: 'collection.' } } });
    expect(log.map((l) => l.action)).toEqual(['collection.vetted']);
    expect((log[0]!.details as Json).before).toBe(set.body.vettedBefore);
    // Texts registered from now on are not vouched for: an attack planted after the corpus was vetted.
    await new Promise((r) => setTimeout(r, 20));
    await ingest(vetted, PLANTED, 'p');
  }, 60_000);

  it('an identified false report against the baseline takes none of its texts out of serving', async () => {
    // Without a baseline the same report quarantines the repeated story (one voice: no consensus protection).
    const without = await report(plain, 'Tomas Vireo', 'user-1');
    expect(without.f.trace.suspectedFalseFlag).toBe(false);
    const outWithout = await t.prisma.quarantineRecord.count({ where: { feedbackId: without.id, state: 'QUARANTINED' } });
    expect(outWithout).toBeGreaterThan(0);

    const { id } = await report(vetted, 'Tomas Vireo', 'user-2');
    const baseline = await idsOf(vetted, 'b');
    const recs = await t.prisma.quarantineRecord.findMany({ where: { feedbackId: id } });
    expect(recs.length).toBeGreaterThan(0); // the judge does find the texts stating the answer…
    for (const q of recs) {
      expect(baseline.has(q.documentId)).toBe(true);
      expect(q.state).toBe('NEEDS_REVIEW'); // …and sends them to a reviewer, served meanwhile
      expect(q.servedDuringReview).toBe(true);
      expect(q.reason).toMatch(/vetted baseline/);
    }
    expect((await t.store.fetch(vetted, [...baseline])).filter((p) => p.quarantined)).toEqual([]);
  }, 240_000);

  it('texts planted after the cutoff are decided as usual: a true report quarantines them', async () => {
    const { id } = await report(vetted, 'Anna Korrel', 'user-3');
    const planted = await idsOf(vetted, 'p');
    const quarantined = (await t.prisma.quarantineRecord.findMany({ where: { feedbackId: id, state: 'QUARANTINED' } })).map((q) => q.documentId);
    expect(quarantined.length).toBeGreaterThan(0);
    for (const d of quarantined) expect(planted.has(d)).toBe(true);
    expect((await t.store.fetch(vetted, quarantined)).every((p) => p.quarantined)).toBe(true);
  }, 240_000);

  it('the SDK sets and clears it; a refusal is a typed error', async () => {
    const admin = new ForensicsClient({ baseUrl: t.url, apiKey: TEST_API_KEY, retry: { retries: 0 } });
    const at = new Date(Date.now() - 3_600_000);
    const set = await admin.setVettedBaseline(plain, at);
    expect(set).toEqual({ name: plain, vettedBefore: at.toISOString(), vettedTexts: 0 }); // an hour ago: before any text here
    await expect(admin.setVettedBaseline(plain, new Date(Date.now() + 86_400_000))).rejects.toMatchObject({ status: 400 });
    await expect(new ForensicsClient({ baseUrl: t.url, apiKey: reviewerKey, retry: { retries: 0 } }).setVettedBaseline(plain)).rejects.toBeInstanceOf(ForensicsApiError);
    expect(await admin.setVettedBaseline(plain, null)).toEqual({ name: plain, vettedBefore: null, vettedTexts: null });
    const log = await t.prisma.auditLog.findMany({ where: { entityType: 'Collection', entityId: plain, action: { startsWith: 'collection.' } }, orderBy: { id: 'asc' } });
    expect(log.map((l) => [l.action, (l.details as Json).previous])).toEqual([['collection.vetted', null], ['collection.vetting-cleared', at.toISOString()]]);
  }, 60_000);

  it('npm run ingest -- --vet imports a corpus and then vouches for it; an unknown option is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vet-cli-'));
    const file = join(dir, 'corpus.jsonl');
    writeFileSync(file, OTHER.map((text, i) => JSON.stringify({ id: `c${i}`, text })).join('\n') + '\n');
    const collection = uniqueName('vet-cli');
    const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'apps/cli/src/main.ts'), 'ingest', ...args], {
      cwd: ROOT, encoding: 'utf8', timeout: 120_000,
      env: { ...process.env, DATABASE_URL: t.config.databaseUrl!, DATA_DIR: t.dataDir, API_KEYS: TEST_API_KEY, NODE_ENV: 'test' },
    });
    try {
      const bad = cli('--collection', collection, '--vett', file);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain('unknown option --vett');
      const ok = cli('--collection', collection, file, '--vet');
      expect(ok.status).toBe(0);
      const line = JSON.parse(ok.stdout.trim().split('\n').pop()!);
      expect(line).toMatchObject({ collection, inserted: OTHER.length, vettedTexts: OTHER.length });
      expect(Date.parse(line.vettedBefore)).toBeLessThanOrEqual(Date.now());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
