/**
 * Database audits (issue 12) on the real service: real Postgres, Redis, the embedded vector store.
 *  - started over the API, run by the worker, inspected over the API (runs, progress, findings);
 *  - roles: reading needs `read`, starting needs `manage`; bad input is a 400 naming the field;
 *  - job schedulers: registering the same schedule from two workers and after a restart leaves one
 *    scheduler, and each tick makes one run; an entry without a collection runs over every collection
 *    (a database of its own), a skipped tick names the setting to change, and the schedulers the setting
 *    no longer lists (an older worker's `audit-reconcile-default`) are removed;
 *  - a worker process SIGKILLed mid-run: the retried job resumes from the run's checkpoint (no page
 *    counted twice, every divergence repaired once).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { Client as PgClient } from 'pg';
import { CreateApiKeyUseCase, IngestCorpusUseCase, StartAuditUseCase, textHash, type AuditRunRow, type Token } from '@forensics/core';
import { AUDIT_QUEUE_NAME } from '@forensics/infra';
import { createTestApp, type TestApp } from './support/test-app';
import { CORPUS, judgeEnv, report, scriptJudge } from './support/faults/fault-kit';
import { startOpenAiTestServer, type OpenAiTestServer } from './support/openai-test-server';
import { eventually, requireServices, TEST_API_KEY, uniqueName } from './support/test-runtime';

const ROOT = resolve(__dirname, '..');
const texts = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ text: `${tag} passage ${i}: the river ${i % 7} flows past the mill number ${i}.` }));

describe('audits over the API, run by the worker', () => {
  let t: TestApp;
  const collection = uniqueName('audit');
  const call = async (method: string, path: string, body?: unknown, key: string | null = TEST_API_KEY) => {
    const res = await fetch(`${t.url}${path}`, {
      method, headers: { ...(key ? { 'x-api-key': key } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };

  beforeAll(async () => { t = await createTestApp({ api: true, worker: true }); });
  afterAll(async () => { await t?.close(); });

  it('starts a reconcile, repairs a divergence, and shows the run and its findings', async () => {
    const r = await t.get(IngestCorpusUseCase).execute({ collection, records: texts(8, 'api') });
    await t.store.setQuarantined(collection, [r.ids[3]!], true); // the store withholds an ACTIVE text
    const started = await call('POST', '/v1/audits', { kind: 'reconcile', collection, params: { pageSize: 3 } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ kind: 'reconcile', collection, trigger: 'api', status: 'QUEUED' });
    const run = await eventually(async () => {
      const g = await call('GET', `/v1/audits/${started.body.id}`);
      return g.body.status === 'SUCCEEDED' ? (g.body as AuditRunRow) : null;
    }, 60_000, 200);
    expect(run.counts).toMatchObject({ pointsChecked: 8, documentsChecked: 8, 'flag-extra.repaired': 1 });
    expect(run.progress).toMatchObject({ done: 8, total: 8 });
    expect(run.startedBy).toMatch(/key:|user:|admin/);
    const findings = await call('GET', `/v1/audits/${run.id}/findings`);
    expect(findings.body.items).toEqual([expect.objectContaining({ type: 'flag-extra', action: 'repaired', documentIds: [r.ids[3]] })]);
    expect((await t.store.fetch(collection, [r.ids[3]!]))[0]!.quarantined).toBe(false);
    const listed = await call('GET', `/v1/audits?collection=${collection}&kind=reconcile`);
    expect(listed.body.items.map((x: AuditRunRow) => x.id)).toContain(run.id);
    // audit.finished went to the outbox (webhooks), and the audit log names who started it.
    const log = await t.prisma.auditLog.findMany({ where: { entityType: 'AuditRun', entityId: run.id }, orderBy: { id: 'asc' } });
    expect(log.map((l) => l.action)).toEqual(['audit.started', 'audit.succeeded']);
  });

  it('checks roles and input', async () => {
    expect((await call('GET', '/v1/audits', undefined, null)).status).toBe(401);
    const { key } = await t.get(CreateApiKeyUseCase).execute({ body: { name: uniqueName('viewer'), role: 'viewer' }, actor: 'test' });
    expect((await call('GET', '/v1/audits', undefined, key)).status).toBe(200);
    expect((await call('POST', '/v1/audits', { kind: 'reconcile', collection }, key)).status).toBe(403);
    const bad = await call('POST', '/v1/audits', { kind: 'sweep-everything', collection });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('kind');
    const missing = await call('POST', '/v1/audits', { kind: 'reconcile', collection: uniqueName('nope') });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('does not exist');
    expect((await call('GET', '/v1/audits/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('manages schedules over the API', async () => {
    const put = await call('PUT', '/v1/audits/schedules/reconcile', { cron: '0 4 * * *', collection });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ kind: 'reconcile', collection, cron: '0 4 * * *' });
    const again = await call('PUT', '/v1/audits/schedules/reconcile', { cron: '30 4 * * *', collection });
    expect(again.status).toBe(200);
    const list = await call('GET', '/v1/audits/schedules');
    expect(list.body.items.filter((s: { collection: string }) => s.collection === collection)).toEqual([expect.objectContaining({ cron: '30 4 * * *' })]);
    expect((await call('PUT', '/v1/audits/schedules/reconcile', { cron: 'not a cron', collection })).status).toBe(400);
    expect((await call('DELETE', `/v1/audits/schedules/reconcile?collection=${collection}`)).status).toBe(204);
    expect((await call('DELETE', `/v1/audits/schedules/reconcile?collection=${collection}`)).status).toBe(404);
  });
});

describe('audit schedules: one scheduler and one run per tick, across workers and restarts', () => {
  const collection = uniqueName('sched');
  const prefix = uniqueName('q');
  const env = { QUEUE_PREFIX: prefix, AUDIT_SCHEDULE: `reconcile:${collection}=*/2 * * * * *` }; // every 2 seconds (6-field cron)
  const apps: TestApp[] = [];
  afterAll(async () => { for (const a of apps) await a.close(); });

  it('registers idempotently and runs once per tick', async () => {
    const a = await createTestApp({ worker: true, env });
    apps.push(a);
    await a.get(IngestCorpusUseCase).execute({ collection, records: texts(4, 'sched') });
    const b = await createTestApp({ worker: true, env });
    apps.push(b);
    const queue = a.get<Queue>(getQueueToken(AUDIT_QUEUE_NAME) as unknown as Token<Queue>);
    const schedulers = async () => (await queue.getJobSchedulers(0, -1, true)).filter((s) => s.key?.includes(collection) || s.id?.includes(collection));
    expect(await schedulers()).toHaveLength(1);
    // Restart one worker: still one scheduler.
    await b.close();
    apps.splice(apps.indexOf(b), 1);
    const c = await createTestApp({ worker: true, env });
    apps.push(c);
    expect(await schedulers()).toHaveLength(1);
    // Let several ticks pass with two workers consuming.
    const since = new Date();
    await new Promise((r) => setTimeout(r, 9_000));
    const runs = await eventually(async () => {
      const rows = await a.prisma.auditRun.findMany({ where: { collection, createdAt: { gte: since } }, orderBy: { createdAt: 'asc' } });
      return rows.length >= 3 ? rows : null;
    }, 30_000, 500);
    expect(runs.every((r) => r.trigger === 'schedule' && r.startedBy === 'scheduler:reconcile')).toBe(true);
    // One run per tick: ticks are 2 s apart, so the runs created since `since` are at most one per 2 s
    // (+1 for a tick at either end). Two workers running every tick would make about twice as many. Not the gap
    // between two runs: a run's createdAt is when a worker took the job, and on a loaded machine a late tick's job
    // is taken right before the next one (CPU-starved runs saw 755 ms).
    const window = runs[runs.length - 1]!.createdAt.getTime() - since.getTime();
    expect(runs.length).toBeLessThanOrEqual(Math.floor(window / 2_000) + 2);
    await eventually(async () => (await a.prisma.auditRun.count({ where: { collection, status: 'SUCCEEDED' } })) >= 2, 30_000, 500);
  }, 90_000);
});

describe('scheduled audits without a collection: every collection, on a database of their own', () => {
  // Its own database on the test server: "every collection" of the shared one would be every other file's.
  const database = uniqueName('audits_every');
  const prefix = uniqueName('q');
  const missing = uniqueName('missing');
  const collections = [uniqueName('docs'), uniqueName('faq')];
  const entries = { every: 'reconcile=*/2 * * * * *', missing: `reconcile:${missing}=*/2 * * * * *` }; // every 2 seconds (6-field cron)
  const lines: Record<string, any>[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l)); done(); } });
  const admin = () => new PgClient({ connectionString: requireServices().databaseUrl });
  let t: TestApp | undefined;
  let redis: IORedis | undefined;

  beforeAll(async () => {
    const db = admin();
    await db.connect();
    await db.query(`CREATE DATABASE "${database}"`);
    await db.end();
    // What an older worker left in Redis: the scheduler it made from the entry 'reconcile=0 * * * *' (then: DEFAULT_COLLECTION),
    // and one set over the API (its data carries params), which must stay.
    redis = new IORedis(requireServices().redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue(AUDIT_QUEUE_NAME, { connection: redis, prefix });
    await queue.upsertJobScheduler('audit-reconcile-default', { pattern: '0 0 1 1 *', tz: 'UTC' }, { name: 'ScheduledAudit', data: { kind: 'reconcile', collection: 'default' } });
    await queue.upsertJobScheduler('audit-re-trace-kept', { pattern: '0 0 1 1 *', tz: 'UTC' }, { name: 'ScheduledAudit', data: { kind: 're-trace', collection: 'kept', params: {} } });
    await queue.close();
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await redis?.quit();
    const db = admin();
    await db.connect();
    await db.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await db.end();
  }, 60_000);

  it('audits every collection there is at each tick; a skip names the setting; schedulers AUDIT_SCHEDULE no longer lists are removed', async () => {
    const url = new URL(requireServices().databaseUrl);
    url.pathname = `/${database}`;
    t = await createTestApp({ api: true, worker: true, logs: sink, env: { DATABASE_URL: url.toString(), QUEUE_PREFIX: prefix, AUDIT_SCHEDULE: `${entries.every};${entries.missing}` } });
    const queue = t.get<Queue>(getQueueToken(AUDIT_QUEUE_NAME) as unknown as Token<Queue>);
    const ids = (await queue.getJobSchedulers(0, -1, true)).map((s) => s.key).sort();
    expect(ids).toEqual(['audit-re-trace-kept', `audit-reconcile-${missing}`, 'audit-reconcile-*'].sort());
    expect(lines.some((l) => l.context === 'audits' && l.msg.startsWith('audit schedule audit-reconcile-default removed: AUDIT_SCHEDULE no longer lists it'))).toBe(true);

    // No collection yet: said once a tick at info; the named one that does not exist is a warning naming its entry.
    const idle = await eventually(async () => lines.find((l) => l.context === 'audits' && /no collection exists yet/.test(l.msg)), 20_000, 200);
    expect(idle.level).toBe(30);
    expect(idle.msg).toContain(`AUDIT_SCHEDULE entry '${entries.every}'`);
    const skip = await eventually(async () => lines.find((l) => l.context === 'audits' && l.msg.startsWith(`scheduled reconcile audit of '${missing}' skipped`)), 20_000, 200);
    expect(skip.level).toBe(40);
    expect(skip.msg).toContain(`'${missing}' does not exist`);
    expect(skip.msg).toContain(`AUDIT_SCHEDULE's entry '${entries.missing}'`);

    // Two collections: each tick of the entry without a collection runs over both.
    const since = new Date();
    for (const c of collections) await t.get(IngestCorpusUseCase).execute({ collection: c, records: texts(3, c) });
    const done = await eventually(async () => {
      const rows = await t!.prisma.auditRun.findMany({ where: { createdAt: { gte: since }, status: 'SUCCEEDED' } });
      return collections.every((c) => rows.some((r) => r.collection === c)) ? rows : null;
    }, 60_000, 500);
    expect(done.every((r) => r.kind === 'reconcile' && r.trigger === 'schedule' && r.startedBy === 'scheduler:reconcile')).toBe(true);
    expect(new Set(done.map((r) => r.collection))).toEqual(new Set(collections));
    expect(lines.filter((l) => l.context === 'audits' && l.level >= 50)).toEqual([]);
  }, 120_000);
});

describe('an audit run killed mid-way resumes', () => {
  let t: TestApp;
  let worker: ChildProcess | null = null;
  const collection = uniqueName('killaudit');

  const startWorker = (extra: Record<string, string> = {}) => {
    const { databaseUrl, redisUrl } = requireServices();
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps', 'worker', 'src', 'main.ts')], {
      cwd: ROOT,
      env: {
        ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, DATA_DIR: t.dataDir, PROBE: 'none', QUEUE_PREFIX: t.config.queue.prefix,
        WORKER_LOCK_MS: '2000', AUDIT_SCHEDULE: 'none', API_KEYS: TEST_API_KEY, ...extra,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (d) => { out += String(d); });
    child.stderr?.on('data', (d) => { out += String(d); });
    (child as ChildProcess & { output: () => string }).output = () => out;
    worker = child;
    return child;
  };
  const exited = (c: ChildProcess, timeoutMs = 90_000) => new Promise<unknown>((res, rej) => {
    if (c.exitCode !== null || c.signalCode !== null) return res(c.signalCode ?? c.exitCode);
    const timer = setTimeout(() => rej(new Error(`worker did not exit in time:\n${(c as ChildProcess & { output: () => string }).output()}`)), timeoutMs);
    c.once('exit', (code, sig) => { clearTimeout(timer); res(sig ?? code); });
  });

  beforeAll(async () => { t = await createTestApp({}); });
  afterAll(async () => {
    if (worker && worker.exitCode === null && worker.signalCode === null) { worker.kill('SIGTERM'); await exited(worker); }
    await t?.close();
  });

  it('continues from the last checkpoint after SIGKILL, counting nothing twice', async () => {
    const r = await t.get(IngestCorpusUseCase).execute({ collection, records: texts(20, 'kill') });
    const flagged = [r.ids[1]!, r.ids[17]!].sort();
    await t.store.setQuarantined(collection, flagged, true); // two flag-extra divergences
    const run = await t.get(StartAuditUseCase).execute({ kind: 'reconcile', collection, trigger: 'api', actor: 'test', params: { pageSize: 5 } });
    // Worker 1 dies right after the run's 2nd checkpoint is persisted (two pages of points done).
    const w1 = startWorker({ FORENSICS_FAILPOINT: 'audit.checkpoint.2' });
    expect(await exited(w1)).toBe('SIGKILL');
    const mid = await t.prisma.auditRun.findUniqueOrThrow({ where: { id: run.id } });
    expect(mid.status).toBe('RUNNING');
    expect((mid.counts as Record<string, number>).pointsChecked).toBe(10);
    // Worker 2 takes the stalled job over and resumes.
    startWorker();
    const done = await eventually(async () => {
      const row = await t.prisma.auditRun.findUniqueOrThrow({ where: { id: run.id } });
      return row.status === 'SUCCEEDED' ? row : null;
    }, 90_000, 300);
    const counts = done.counts as Record<string, number>;
    expect(counts.pointsChecked).toBe(20);
    expect(counts.documentsChecked).toBe(20);
    expect(counts['flag-extra.repaired']).toBe(2);
    const findings = await t.prisma.auditFinding.findMany({ where: { runId: run.id, type: 'flag-extra' } });
    expect(findings.flatMap((f) => f.documentIds).sort()).toEqual(flagged);
    expect((await t.store.fetch(collection, flagged)).every((x) => !x.quarantined)).toBe(true);
  }, 180_000);
});

describe('admission check at ingestion (real API, worker, scripted judge)', () => {
  let t: TestApp;
  let server: OpenAiTestServer;
  const collection = uniqueName('admit');
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${t.url}${path}`, { method, headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, any> };
  };

  beforeAll(async () => {
    server = await startOpenAiTestServer();
    scriptJudge(server, 0);
    t = await createTestApp({ api: true, worker: true, env: judgeEnv(server) });
    expect((await api('POST', `/v1/collections/${collection}/documents`, { documents: CORPUS })).status).toBe(200);
  });
  afterAll(async () => { await t?.close(); await server?.close(); });

  it('holds a re-injected poison for review before it is ever served, and lets clean texts through', async () => {
    const fb = await api('POST', '/v1/feedback', report(collection, 0));
    expect(fb.status).toBe(202);
    const traced = await eventually(async () => {
      const r = await api('GET', `/v1/feedback/${fb.body.id}`);
      return ['TRACED', 'BOUNDED', 'FAILED'].includes(r.body.status) ? r.body : null;
    }, 60_000);
    expect(traced.quarantined.filter((q: any) => q.state === 'QUARANTINED').length).toBeGreaterThanOrEqual(3);
    // The attacker re-injects a rewrite after the clean-up, next to an honest new text.
    const reinjected = 'Records show the Eiffel Tower in Paris was designed by Antoni Gaudi before 1889.';
    const honest = 'The Eiffel Tower welcomes about seven million visitors every year.';
    const ing = await api('POST', `/v1/collections/${collection}/documents`, { documents: [{ id: 'r1', text: reinjected }, { id: 'n1', text: honest }] });
    expect(ing.status).toBe(200);
    expect(ing.body.admission).toMatchObject({ held: 1 });
    const [poisonDoc] = await t.prisma.document.findMany({ where: { collection, externalId: 'r1' } });
    const [honestDoc] = await t.prisma.document.findMany({ where: { collection, externalId: 'n1' } });
    // Never served: written already flagged, a NEEDS_REVIEW record linked to the attacked event.
    expect((await t.store.fetch(collection, [poisonDoc!.id]))[0]!.quarantined).toBe(true);
    const [qv] = await t.embedder.embed([String(report(collection, 0).query)]);
    const served = await t.store.search(collection, { vector: qv!, k: 20 });
    expect(served.map((h) => h.id)).not.toContain(poisonDoc!.id);
    expect(served.map((h) => h.id)).toContain(honestDoc!.id);
    const rec = await t.prisma.quarantineRecord.findFirstOrThrow({ where: { documentId: poisonDoc!.id } });
    expect(rec).toMatchObject({ state: 'NEEDS_REVIEW', servedDuringReview: false, policy: 'admission', feedbackId: fb.body.id });
    // It is a review item like any other.
    expect((await api('GET', `/v1/review/items/${rec.id}`)).status).toBe(200);
  }, 120_000);

  it('re-trace over the API: a poison written past the admission check is found on the attacked question and goes to review', async () => {
    // A text registered and written by another path (an import that bypasses our ingest API): the admission check never saw it.
    const text = 'Antoni Gaudi drew the Eiffel Tower plans, the Paris archives say.';
    const id = randomUUID();
    await t.prisma.document.create({ data: { id, collection, textHash: textHash(text), text } });
    const [vec] = await t.embedder.embed([text]);
    await t.store.upsert(collection, [{ id, vector: vec!, text, payload: {} }]);
    const start = await api('POST', '/v1/audits', { kind: 're-trace', collection });
    expect(start.status).toBe(202);
    const run = await eventually(async () => {
      const r = await api('GET', `/v1/audits/${start.body.id}`);
      return ['SUCCEEDED', 'FAILED'].includes(r.body.status) ? r.body : null;
    }, 60_000);
    expect(run).toMatchObject({ status: 'SUCCEEDED', counts: expect.objectContaining({ events: 1, poisonsFound: 1 }) });
    const findings = await api('GET', `/v1/audits/${start.body.id}/findings`);
    expect(findings.body.items).toHaveLength(1);
    expect(findings.body.items[0]).toMatchObject({ type: 're-trace', action: 'review', documentIds: [id], detail: expect.objectContaining({ wrongAnswer: 'Antoni Gaudi' }) });
    const rec = await t.prisma.quarantineRecord.findFirstOrThrow({ where: { documentId: id } });
    expect(rec).toMatchObject({ state: 'NEEDS_REVIEW', servedDuringReview: true, policy: 'audit' });
    expect(findings.body.items[0].quarantineIds).toEqual([rec.id]);
    // Nothing clean of the collection was sent: the honest text added earlier is not in review.
    expect(await t.prisma.quarantineRecord.count({ where: { collection, policy: 'audit' } })).toBe(1);
  }, 120_000);
});
