import { randomUUID } from 'node:crypto';
import { AuditCancelledError, type AuditContext } from '../../../ports/audits.port';
import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryAuditRunRepository, InMemoryVectorStore, ScriptedJudge } from '../../../testing';
import { IngestCorpusUseCase } from '../../collections/ingest-corpus/ingest-corpus.use-case';
import { QuarantineTextUseCase } from '../../quarantine/quarantine-text/quarantine-text.use-case';
import { BTE_PROXY_KIND } from '../../serving/serving-view/serving-view';
import { StartAuditUseCase } from '../manage-audits.use-case';
import { ReconcileAudit } from '../reconcile/reconcile.audit';
import { RunAuditUseCase } from '../run-audit.use-case';

const C = 'kb';

async function world() {
  const repos = createInMemoryRepositories();
  const store = new InMemoryVectorStore();
  const embedder = new HashingEmbedder(32);
  const runs = new InMemoryAuditRunRepository();
  const published: { type: string; data: Record<string, unknown> }[] = [];
  const uc = composeUseCases({ repos, store, embedder, judge: new ScriptedJudge(() => 'NO'), auditRuns: runs, events: { publish: async (e) => { published.push(e); } } });
  const texts = Array.from({ length: 12 }, (_, i) => `passage number ${i} about topic ${i % 3} with words ${'w'.repeat(i + 1)}`);
  const ingested = await uc.get(IngestCorpusUseCase).execute({ collection: C, records: texts.map((text) => ({ text })) });
  return { repos, store, embedder, runs, uc, ids: ingested.ids, published };
}

function evidence() {
  return { policy: { name: 'test', decision: 'QUARANTINE', withhold: true, reason: 'test', inputs: {} }, judge: { kind: 'test', model: 't', promptVersion: 'v', signals: null }, retrieval: null, retrieverEvidence: null };
}

describe('reconcile audit', () => {
  it('repairs or reports every injected divergence kind and loses nothing', async () => {
    const { repos, store, embedder, uc, ids, runs, published } = await world();
    const [quarantined, flagExtra, pointMissing, unsynced] = ids;
    // A text quarantined through the use case (Postgres QUARANTINED, flag set) …
    await uc.get(QuarantineTextUseCase).execute({ documentId: quarantined!, feedbackId: null, collection: C, reason: 'r', evidence: evidence(), policy: 'test', actor: 't' });
    // … then the divergences:
    await store.setQuarantined(C, [quarantined!], false); // flag-missing
    await store.setQuarantined(C, [flagExtra!], true); // flag-extra
    const strayId = randomUUID();
    await store.upsert(C, [{ id: strayId, vector: (await embedder.embed(['stray']))[0]!, text: 'written around the service', payload: {} }]); // point-unknown
    await store.delete(C, [pointMissing!]); // point-missing
    const orphanProxy = randomUUID();
    await store.upsert(C, [{ id: orphanProxy, vector: (await embedder.embed(['q']))[0]!, text: 'proxy', payload: { kind: BTE_PROXY_KIND, feedbackId: randomUUID(), query: 'q' } }]); // proxy-orphan
    const { event } = await repos.feedback.create({ collection: C, query: 'who wrote it', wrongAnswer: 'B', k: 5 });
    const enh = await repos.enhancements.create({
      collection: C, feedbackId: event.id, query: 'who wrote it', correctAnswer: 'A', benignText: 'A wrote it.', proxyId: randomUUID(),
      generatorKind: 'offline', generatorModel: 'm', promptVersion: 'v', createdBy: 't',
    }); // proxy-missing
    await repos.quarantines.create({ documentId: unsynced!, feedbackId: null, collection: C, reason: 'r', evidence: evidence(), policy: 'test', createdBy: 't' }); // unsynced

    const run = await uc.get(StartAuditUseCase).execute({ kind: 'reconcile', collection: C, trigger: 'cli', actor: 'test', enqueue: false, params: { pageSize: 5 } });
    const out = await uc.get(RunAuditUseCase).execute({ runId: run.id });
    expect(out!.run.status).toBe('SUCCEEDED');
    const c = out!.run.counts;
    expect(c).toMatchObject({
      'unsynced.repaired': 1, 'flag-missing.repaired': 1, 'flag-extra.repaired': 1, 'point-unknown.reported': 1,
      'point-missing.repaired': 1, 'proxy-orphan.repaired': 1, 'proxy-missing.repaired': 1, documentsChecked: 12,
    });
    const findings = await runs.listFindings(run.id, { limit: 100 });
    expect(new Set(findings.map((f) => `${f.type}:${f.action}`))).toEqual(new Set([
      'unsynced:repaired', 'flag-missing:repaired', 'flag-extra:repaired', 'point-unknown:reported', 'point-missing:repaired', 'proxy-orphan:repaired', 'proxy-missing:repaired',
    ]));
    // The store now agrees with Postgres, and nothing was deleted.
    const byId = new Map((await store.fetch(C, [...ids, strayId, orphanProxy, enh.proxyId])).map((r) => [r.id, r]));
    expect(byId.size).toBe(ids.length + 3);
    expect(byId.get(quarantined!)!.quarantined).toBe(true);
    expect(byId.get(flagExtra!)!.quarantined).toBe(false);
    expect(byId.get(unsynced!)!.quarantined).toBe(true);
    expect(byId.get(strayId)!.quarantined).toBe(false);
    expect(byId.get(orphanProxy)!.quarantined).toBe(true);
    expect(byId.get(enh.proxyId)!.payload.kind).toBe(BTE_PROXY_KIND);
    expect(published.filter((e) => e.type === 'audit.finished').map((e) => e.data.status)).toEqual(['SUCCEEDED']);

    // A second run finds nothing left to repair except the stray point it reports again.
    const again = await uc.get(StartAuditUseCase).execute({ kind: 'reconcile', collection: C, trigger: 'cli', actor: 'test', enqueue: false });
    const second = await uc.get(RunAuditUseCase).execute({ runId: again.id });
    expect(Object.keys(second!.run.counts).filter((k) => k.endsWith('.repaired'))).toEqual([]);
    expect(second!.run.counts['point-unknown.reported']).toBe(1);
  });

  it('a run killed after a page resumes from its cursor without counting a page twice', async () => {
    const { store, uc, ids, runs } = await world();
    await store.setQuarantined(C, [ids[11]!], true); // one flag-extra on the last page
    const run = await uc.get(StartAuditUseCase).execute({ kind: 'reconcile', collection: C, trigger: 'cli', actor: 'test', enqueue: false, params: { pageSize: 4 } });
    const handler = uc.get(ReconcileAudit);
    // First attempt: the process "dies" at the second checkpoint (after two pages of points).
    let checkpoints = 0;
    const row = (await runs.markRunning(run.id))!;
    const dying: AuditContext = {
      run: row, cursor: () => null, log: () => {},
      checkpoint: async (u) => { if (++checkpoints === 2) throw new Error('killed'); await runs.checkpoint(run.id, u); },
      finding: (f) => runs.addFinding(run.id, f), review: async () => { throw new AuditCancelledError(run.id); },
    };
    await expect(handler.execute(dying)).rejects.toThrow('killed');
    expect((await runs.get(run.id))!.counts.pointsChecked).toBe(4);
    // The retried job: the runner resumes from the persisted cursor.
    const out = await uc.get(RunAuditUseCase).execute({ runId: run.id });
    expect(out!.run.status).toBe('SUCCEEDED');
    expect(out!.run.counts.pointsChecked).toBe(12);
    expect(out!.run.counts.documentsChecked).toBe(12);
    expect(out!.run.counts['flag-extra.repaired']).toBe(1);
    expect((await store.fetch(C, [ids[11]!]))[0]!.quarantined).toBe(false);
  });

  it('register: true registers the store points the registry does not know, as they stand, so a vetted baseline can cover them', async () => {
    const { repos, store, uc, runs } = await world();
    const stray = { id: randomUUID(), text: 'written around the service by the app', payload: { externalId: 'app-7' } };
    const notUuid = { id: 'app-point-8', text: 'an id the registry cannot hold', payload: {} };
    await store.upsert(C, [stray, notUuid].map((p) => ({ ...p, vector: Array.from({ length: 32 }, (_, i) => (i === 0 ? 1 : 0)) })));
    const run = await uc.get(StartAuditUseCase).execute({ kind: 'reconcile', collection: C, trigger: 'cli', actor: 'test', enqueue: false, params: { register: true } });
    const out = await uc.get(RunAuditUseCase).execute({ runId: run.id });
    expect(out!.run.status).toBe('SUCCEEDED');
    expect(out!.run.counts).toMatchObject({ 'point-unknown.repaired': 1, 'point-unknown.reported': 1 });
    const [doc] = await repos.documents.get([stray.id]);
    expect(doc).toMatchObject({ id: stray.id, collection: C, externalId: 'app-7', text: stray.text, status: 'ACTIVE' });
    expect((await store.fetch(C, [stray.id]))[0]!.quarantined).toBe(false); // still served
    const findings = await runs.listFindings(run.id, { limit: 100 });
    expect(findings.filter((f) => f.type === 'point-unknown').map((f) => `${f.action}:${f.documentIds.join(',')}`).sort()).toEqual([`repaired:${stray.id}`, `reported:${notUuid.id}`]);
    // Now a cutoff covers it; without the parameter (the default) nothing is registered.
    const cutoff = new Date(Date.now() + 1);
    await new Promise((r) => setTimeout(r, 2));
    expect(await repos.documents.countRegisteredBefore(C, cutoff)).toBe(13);
    const plain = await world();
    await plain.store.upsert(C, [{ ...stray, vector: Array.from({ length: 32 }, (_, i) => (i === 0 ? 1 : 0)) }]);
    const r2 = await plain.uc.get(StartAuditUseCase).execute({ kind: 'reconcile', collection: C, trigger: 'cli', actor: 'test', enqueue: false });
    expect((await plain.uc.get(RunAuditUseCase).execute({ runId: r2.id }))!.run.counts['point-unknown.reported']).toBe(1);
    expect(await plain.repos.documents.get([stray.id])).toEqual([]);
  });

  it('cancel stops a running audit at its next checkpoint', async () => {
    const { uc, runs } = await world();
    const run = await uc.get(StartAuditUseCase).execute({ kind: 'reconcile', collection: C, trigger: 'cli', actor: 'test', enqueue: false, params: { pageSize: 2 } });
    await runs.markRunning(run.id);
    await runs.cancel(run.id);
    const out = await uc.get(RunAuditUseCase).execute({ runId: run.id });
    expect(out!.run.status).toBe('CANCELLED');
  });

  it('refuses a collection that does not exist', async () => {
    const { uc } = await world();
    await expect(uc.get(StartAuditUseCase).execute({ kind: 'reconcile', collection: 'nope', trigger: 'api', actor: 't' })).rejects.toThrow(/collection: 'nope' does not exist/);
  });
});
