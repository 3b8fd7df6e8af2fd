import { randomUUID } from 'node:crypto';
import { registerUnknown } from '../register-unknown';
import { runFixture } from './run-fixture';

const TEXT = 'The capital of Australia is Sydney, chosen as the capital city in 1901.';
const OTHER = 'Canberra is the capital city of Australia, founded in 1913.';

/** registerUnknown alone (its effect on a whole traceback is register-unknown.spec.ts): what it writes, and when it says "search again". */
describe('registerUnknown', () => {
  const setup = async () => {
    const f = await runFixture({ texts: [TEXT, OTHER], query: 'What is the capital of Australia?', wrongAnswer: 'Sydney' });
    const [vec] = await f.embedder.embed([TEXT]);
    const deps = { documents: f.repos.documents, store: f.store, audit: f.repos.audit, actor: 'worker' };
    const hits = async () => f.store.search('kb', { vector: vec!, k: 5 });
    return { ...f, vec: vec!, deps, hits };
  };

  it('changes nothing and asks for no new search when every hit is registered', async () => {
    const { deps, event, hits, store } = await setup();
    const upsert = jest.spyOn(store, 'upsert');
    expect(await registerUnknown(deps, event, await hits())).toBe(false);
    expect(await registerUnknown(deps, event, [])).toBe(false);
    expect(upsert).not.toHaveBeenCalled();
  });

  it('registers a store text Postgres does not know, without touching the store', async () => {
    const { deps, event, hits, store, repos, vec } = await setup();
    const foreign = randomUUID();
    await store.upsert('kb', [{ id: foreign, vector: vec, text: 'Sydney hosts the Australian capital, some say.' }]);
    expect(await registerUnknown(deps, event, await hits())).toBe(false);
    expect((await repos.documents.get([foreign]))[0]).toMatchObject({ id: foreign, collection: 'kb', status: 'ACTIVE' });
  });

  it('folds a second vector of a registered text into its document, audits it, and asks for a new search', async () => {
    const { deps, event, hits, store, repos, vec, id } = await setup();
    const ghost = randomUUID();
    await store.upsert('kb', [{ id: ghost, vector: vec, text: TEXT }]);
    expect(await registerUnknown(deps, event, await hits())).toBe(true);
    expect(await store.fetch('kb', [ghost])).toEqual([]);
    expect(await store.fetch('kb', [id(TEXT)])).toHaveLength(1);
    const [entry] = (await repos.audit.listFor('Collection', 'kb')).filter((a) => a.action === 'store.duplicates-folded');
    expect(entry).toMatchObject({ actor: 'worker', details: { feedbackId: event.id, folded: [{ storeId: ghost, documentId: id(TEXT) }] } });
  });
});
