import { REVIEW, PURGED_TEXT_MARKER } from '../../../../ports/repositories/review.port';
import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryVectorStore, ScriptedJudge } from '../../../../testing';
import { BulkReviewUseCase } from '../../review/bulk-review/bulk-review.use-case';
import { IngestCorpusUseCase } from '../../../collections/ingest-corpus/ingest-corpus.use-case';
import { SyncQuarantinesUseCase } from '../../sync-quarantines/sync-quarantines.use-case';
import { PurgeQuarantineUseCase } from '../purge-quarantine.use-case';

/**
 * Write order of review decisions (issue 11): Postgres first, then the vector store, then synced.
 * The store write is made to fail; the text must not be served in a way Postgres does not say, and
 * SyncQuarantinesUseCase (run by every retried traceback and at worker start) completes the change.
 */
const C = 'kb';
const TEXTS = ['The sperm whale is the largest toothed whale.', 'Moby-Dick was written by Charles Dickens.', 'Paris is the capital of France.'];

async function setup() {
  const repos = createInMemoryRepositories();
  const store = new InMemoryVectorStore();
  const useCases = composeUseCases({ repos, store, embedder: new HashingEmbedder(32), judge: new ScriptedJudge(() => 'NO') });
  const { ids } = await useCases.get(IngestCorpusUseCase).execute({ collection: C, records: TEXTS.map((text) => ({ text })) });
  const records = [];
  for (const id of ids) {
    const { record } = await repos.quarantines.create({ state: 'NEEDS_REVIEW', documentId: id, feedbackId: null, collection: C, reason: 'test', evidence: {} as never, policy: 'test', createdBy: 'test' });
    await store.setQuarantined(C, [id], true);
    await repos.quarantines.markSynced(record.id);
    records.push(record);
  }
  return { repos, store, useCases, ids, records };
}

describe('review decisions write order', () => {
  it('purge: a failed store delete leaves the record unsynced (text already redacted, never served), and the sync deletes the point', async () => {
    const { repos, store, useCases, ids, records } = await setup();
    const del = jest.spyOn(store, 'delete').mockRejectedValueOnce(new Error('store unreachable'));
    await expect(useCases.get(PurgeQuarantineUseCase).execute({ quarantineId: records[0].id, confirm: ids[0], actor: 'admin', override: true })).rejects.toThrow('store unreachable');
    del.mockRestore();
    expect((await repos.quarantines.get(records[0].id))).toMatchObject({ state: 'PURGED', storeSynced: false });
    expect((await repos.documents.get([ids[0]]))[0]).toMatchObject({ status: 'PURGED', text: PURGED_TEXT_MARKER });
    // Still flagged: not served meanwhile.
    expect((await store.fetch(C, [ids[0]]))[0].quarantined).toBe(true);
    expect(await useCases.get(SyncQuarantinesUseCase).execute()).toBe(1);
    expect(await store.fetch(C, [ids[0]])).toEqual([]);
    expect((await repos.quarantines.get(records[0].id))!.storeSynced).toBe(true);
  });

  it('purge needs the typed confirmation and changes nothing without it', async () => {
    const { repos, useCases, records, ids } = await setup();
    await expect(useCases.get(PurgeQuarantineUseCase).execute({ quarantineId: records[1].id, confirm: 'yes', actor: 'admin' })).rejects.toThrow(/confirm/);
    expect((await repos.documents.get([ids[1]]))[0].text).toBe(TEXTS[1]);
  });

  it('bulk restore: a failed store write leaves the batch decided in Postgres and unsynced; the sync serves them; a retry changes nothing twice', async () => {
    const { repos, store, useCases, ids, records } = await setup();
    const set = jest.spyOn(store, 'setQuarantined').mockRejectedValueOnce(new Error('store unreachable'));
    const body = { action: 'restore', ids: records.map((r) => r.id), requestId: 'bulk-write-order-1' };
    await expect(useCases.get(BulkReviewUseCase).execute(body, { actor: 'rev' })).rejects.toThrow('store unreachable');
    set.mockRestore();
    for (const r of records) expect(await repos.quarantines.get(r.id)).toMatchObject({ state: 'RESTORED', storeSynced: false });
    expect((await store.fetch(C, ids)).every((r) => r.quarantined)).toBe(true);
    expect(await useCases.get(SyncQuarantinesUseCase).execute()).toBe(3);
    expect((await store.fetch(C, ids)).every((r) => !r.quarantined)).toBe(true);
    // The retry of the request that failed half-way: nothing left to change, the count is of this request's decisions.
    const again = await useCases.get(BulkReviewUseCase).execute(body, { actor: 'rev' });
    expect(again).toMatchObject({ matched: 3, changed: 3, skipped: 0, replayed: false });
    expect(await useCases.get(BulkReviewUseCase).execute(body, { actor: 'rev' })).toMatchObject({ matched: 3, changed: 3, replayed: true });
    expect((await useCases.port(REVIEW).listAudit({ action: 'quarantine.restored', limit: 10 })).length).toBe(3);
  });
});
