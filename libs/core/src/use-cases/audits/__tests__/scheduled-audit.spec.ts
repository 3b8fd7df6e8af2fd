import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryAuditRunRepository, InMemoryVectorStore, ScriptedJudge } from '../../../testing';
import { IngestCorpusUseCase } from '../../collections/ingest-corpus/ingest-corpus.use-case';
import { EVERY_COLLECTION, RunScheduledAuditUseCase } from '../audit-schedules.use-case';

function world() {
  const runs = new InMemoryAuditRunRepository();
  const uc = composeUseCases({ repos: createInMemoryRepositories(), store: new InMemoryVectorStore(), embedder: new HashingEmbedder(16), judge: new ScriptedJudge(() => 'NO'), auditRuns: runs, settings: { defaultCollection: 'default' } });
  const ingest = (collection: string) => uc.get(IngestCorpusUseCase).execute({ collection, records: [{ text: `a passage of ${collection}` }] });
  return { uc, runs, ingest, tick: uc.get(RunScheduledAuditUseCase) };
}

describe('a scheduled audit tick', () => {
  it('without a collection, audits every collection there is at the tick (never DEFAULT_COLLECTION by itself)', async () => {
    const { tick, ingest } = world();
    const none = await tick.execute({ kind: 'reconcile', collection: EVERY_COLLECTION, source: 'AUDIT_SCHEDULE', entry: 'reconcile=0 * * * *' });
    expect(none.runs).toEqual([]);
    expect(none.skipped).toEqual([{ collection: null, reason: expect.stringContaining("AUDIT_SCHEDULE entry 'reconcile=0 * * * *'") }]);
    await ingest('docs');
    await ingest('faq');
    const out = await tick.execute({ kind: 'reconcile', collection: EVERY_COLLECTION, source: 'AUDIT_SCHEDULE', entry: 'reconcile=0 * * * *' });
    expect(out.runs.map((r) => r.collection).sort()).toEqual(['docs', 'faq']);
    expect(out.runs.every((r) => r.trigger === 'schedule' && r.startedBy === 'scheduler:reconcile' && r.status === 'QUEUED')).toBe(true);
    expect(out.skipped).toEqual([]);
  });

  it('a named collection that does not exist is skipped with the setting to change: the AUDIT_SCHEDULE entry, or the API call', async () => {
    const { tick, runs } = world();
    const configured = await tick.execute({ kind: 're-trace', collection: 'default', source: 'AUDIT_SCHEDULE', entry: 're-trace:default=30 */6 * * *' });
    expect(configured.runs).toEqual([]);
    expect(configured.skipped).toHaveLength(1);
    expect(configured.skipped[0]!.collection).toBe('default');
    expect(configured.skipped[0]!.reason).toMatch(/'default' does not exist.*AUDIT_SCHEDULE's entry 're-trace:default=30 \*\/6 \* \* \*'.*leave the collection out to audit every collection/);
    const api = await tick.execute({ kind: 'reconcile', collection: 'gone', source: 'api' });
    expect(api.skipped[0]!.reason).toMatch(/set over the API: DELETE \/v1\/audits\/schedules\/reconcile\?collection=gone/);
    expect(await runs.list({ limit: 10 })).toEqual([]);
  });
});
