import type { Generator } from '../../../../ports/generator.port';
import { REVIEW } from '../../../../ports/repositories/review.port';
import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryVectorStore, ScriptedJudge } from '../../../../testing';
import { EnhanceAnswerUseCase } from '../../../serving/enhance-answer/enhance-answer.use-case';
import { IngestCorpusUseCase } from '../ingest-corpus.use-case';
import { RestoreQuarantineUseCase } from '../../../quarantine/restore-quarantine/restore-quarantine.use-case';

/**
 * Write order (issue 10, "no ghosts"): a vector never exists without its Postgres row. A repository
 * write is made to fail; the vector store must hold nothing the database does not know, and a re-run
 * repairs what the failure left half-written.
 */
const C = 'kb';

class FixedGenerator implements Generator {
  readonly kind = 'fixed';
  readonly model = 'fixed-1';
  async generate(): Promise<never> { throw new Error('not used'); }
  async benignText() { return { text: 'Moby-Dick was written by Herman Melville.', promptVersion: 'bte-test' }; }
}

function setup() {
  const repos = createInMemoryRepositories();
  const store = new InMemoryVectorStore();
  const embedder = new HashingEmbedder(32);
  const useCases = composeUseCases({ repos, store, embedder, generator: new FixedGenerator(), judge: new ScriptedJudge(() => 'NO') });
  return { repos, store, useCases };
}

const TEXTS = ['The sperm whale is the largest toothed whale.', 'Moby-Dick was written by Herman Melville.', 'Paris is the capital of France.'];

describe('IngestCorpusUseCase write order', () => {
  it('leaves no vector behind when the Postgres insert fails', async () => {
    const { repos, store, useCases } = setup();
    const insert = jest.spyOn(repos.documents, 'insert').mockRejectedValueOnce(new Error('invalid byte sequence (22021)'));
    await expect(useCases.get(IngestCorpusUseCase).execute({ collection: C, records: TEXTS.map((text) => ({ text })) })).rejects.toThrow('22021');
    expect(await store.count(C)).toBe(0);
    insert.mockRestore();

    const r = await useCases.get(IngestCorpusUseCase).execute({ collection: C, records: TEXTS.map((text) => ({ text })) });
    expect(r).toMatchObject({ inserted: 3, skipped: 0, repaired: 0 });
    expect(await store.count(C)).toBe(3);
  });

  it('a text registered without its vector (store write failed) is upserted by the next ingestion', async () => {
    const { repos, store, useCases } = setup();
    const upsert = jest.spyOn(store, 'upsert').mockRejectedValueOnce(new Error('disk full'));
    await expect(useCases.get(IngestCorpusUseCase).execute({ collection: C, records: TEXTS.map((text) => ({ text })) })).rejects.toThrow('disk full');
    upsert.mockRestore();
    expect(await store.count(C)).toBe(0);
    expect(repos.state.documents.size).toBe(3);

    const r = await useCases.get(IngestCorpusUseCase).execute({ collection: C, records: TEXTS.map((text) => ({ text })) });
    expect(r).toMatchObject({ inserted: 0, skipped: 3, repaired: 3 });
    const stored = await store.fetch(C, r.ids);
    expect(stored.map((s) => s.id).sort()).toEqual([...r.ids].sort());

    // Nothing left to repair: a third run writes nothing.
    const spy = jest.spyOn(store, 'upsert');
    const again = await useCases.get(IngestCorpusUseCase).execute({ collection: C, records: TEXTS.map((text) => ({ text })) });
    expect(again).toMatchObject({ inserted: 0, skipped: 3, repaired: 0 });
    expect(spy).not.toHaveBeenCalled();
  });

  it('repairs only the missing vectors, and a repaired quarantined text stays out of serving', async () => {
    const { repos, store, useCases } = setup();
    const first = await useCases.get(IngestCorpusUseCase).execute({ collection: C, records: TEXTS.map((text) => ({ text })) });
    const [lost, kept] = first.ids;
    // A quarantined text whose vector is gone (e.g. the store restored from an older backup).
    repos.state.documents.get(lost)!.status = 'QUARANTINED';
    await store.delete(C, [lost]);
    const before = (await store.fetch(C, [kept]))[0];

    const r = await useCases.get(IngestCorpusUseCase).execute({ collection: C, records: TEXTS.map((text) => ({ text })) });
    expect(r.repaired).toBe(1);
    const [back] = await store.fetch(C, [lost]);
    expect(back.quarantined).toBe(true);
    expect((await store.fetch(C, [kept]))[0]).toEqual(before);
  });
});

describe('EnhanceAnswerUseCase write order', () => {
  it('deletes the proxy vector again when the enhancement row cannot be written, and a retry completes', async () => {
    const { repos, store, useCases } = setup();
    await useCases.get(IngestCorpusUseCase).execute({ collection: C, records: TEXTS.map((text) => ({ text })) });
    const { event } = await repos.feedback.create({ collection: C, query: 'who wrote moby-dick', wrongAnswer: 'Charles Dickens', correctAnswer: 'Herman Melville', k: 3 });
    const create = jest.spyOn(repos.enhancements, 'create').mockRejectedValueOnce(new Error('connection refused'));
    await expect(useCases.get(EnhanceAnswerUseCase).execute({ feedbackId: event.id, actor: 'test', authority: 'reviewer' })).rejects.toThrow('connection refused');
    expect(await store.count(C)).toBe(TEXTS.length);
    create.mockRestore();

    const { enhancement, created } = await useCases.get(EnhanceAnswerUseCase).execute({ feedbackId: event.id, actor: 'test', authority: 'reviewer' });
    expect(created).toBe(true);
    expect(await store.count(C)).toBe(TEXTS.length + 1);
    expect((await store.fetch(C, [enhancement.proxyId]))).toHaveLength(1);
  });
});

describe('RestoreQuarantineUseCase write order', () => {
  it('keeps the text out of serving when the Postgres restore fails (Postgres first, then the store)', async () => {
    const { repos, store, useCases } = setup();
    const { ids } = await useCases.get(IngestCorpusUseCase).execute({ collection: C, records: TEXTS.map((text) => ({ text })) });
    const { record } = await repos.quarantines.create({ documentId: ids[0], feedbackId: null, collection: C, reason: 'test', evidence: {} as never, policy: 'test', createdBy: 'test' });
    await store.setQuarantined(C, [ids[0]], true);
    const restore = jest.spyOn(useCases.port(REVIEW), 'decide').mockRejectedValueOnce(new Error('connection refused'));
    await expect(useCases.get(RestoreQuarantineUseCase).execute({ quarantineId: record.id, actor: 'test' })).rejects.toThrow('connection refused');
    expect((await store.fetch(C, [ids[0]]))[0].quarantined).toBe(true);
    restore.mockRestore();
    await useCases.get(RestoreQuarantineUseCase).execute({ quarantineId: record.id, actor: 'test' });
    expect((await store.fetch(C, [ids[0]]))[0].quarantined).toBe(false);
  });
});
