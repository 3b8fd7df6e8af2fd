import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryVectorStore, ScriptedJudge } from '../../../../testing';
import { IngestCorpusUseCase } from '../../../collections/ingest-corpus/ingest-corpus.use-case';
import { feedbackReportKey } from '../../submit-feedback/report-key';
import { ProcessFeedbackEventUseCase } from '../process-feedback-event.use-case';

/**
 * A run given an aborted signal (the worker's drain timeout, a lost job lock) stops at its next safe point and
 * throws the signal's reason: no write of it follows, no write that belongs with another is left half done,
 * and the next run resumes from what it wrote.
 */
const PLANTED = Array.from({ length: 3 }, (_, i) => `Velmora harbor mural fact ${i}: the mural was painted by Orla Venn.`);
const GENUINE = Array.from({ length: 6 }, (_, i) => `Velmora harbor guide ${i}: the ferries leave at noon from the quay.`);
const QUERY = 'who painted the velmora harbor mural';

async function harness(o: { onJudge?: (n: number) => void; onFailpoint?: (name: string) => void } = {}) {
  const repos = createInMemoryRepositories();
  const store = new InMemoryVectorStore();
  const judge = new ScriptedJudge((req) => {
    o.onJudge?.(judge.requests.length);
    return req.text.includes('Orla Venn') ? 'YES' : 'NO';
  });
  const useCases = composeUseCases({
    repos, store, embedder: new HashingEmbedder(128), judge, failpoints: { hit: (name) => o.onFailpoint?.(name) },
    settings: { trace: { maxRounds: 10, maxJudgeCalls: 50, judgeConcurrency: 2 } },
  });
  await useCases.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [...PLANTED, ...GENUINE].map((text) => ({ text })) });
  const { event } = await repos.feedback.create({ collection: 'kb', query: QUERY, wrongAnswer: 'Orla Venn', k: 3, trust: 'identified', reporterSource: 'key:svc/u1', reportKey: feedbackReportKey(QUERY, 'Orla Venn') });
  const pipeline = useCases.get(ProcessFeedbackEventUseCase);
  return { repos, store, judge, event, pipeline };
}

const settle = async () => { for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r)); };

describe('ProcessFeedbackEventUseCase stops at a safe point when its signal is aborted', () => {
  it('aborted before it starts: writes nothing', async () => {
    const h = await harness();
    const controller = new AbortController();
    controller.abort(new Error('drain timeout'));
    await expect(h.pipeline.execute({ feedbackId: h.event.id, signal: controller.signal })).rejects.toThrow('drain timeout');
    const row = (await h.repos.feedback.get(h.event.id))!;
    expect({ status: row.status, attempts: row.attempts, step: row.step }).toEqual({ status: h.event.status, attempts: h.event.attempts, step: null });
    expect(h.judge.requests).toHaveLength(0);
  });

  it('aborted while judging: the reply of the call in flight is not saved, nothing runs on, the next run judges only what is missing', async () => {
    const controller = new AbortController();
    const h = await harness({ onJudge: (n) => { if (n === 3) controller.abort(new Error('drain timeout')); } });
    await expect(h.pipeline.execute({ feedbackId: h.event.id, signal: controller.signal })).rejects.toThrow('drain timeout');
    const asked = h.judge.requests.length;
    await settle();
    expect(h.judge.requests).toHaveLength(asked); // no call after the run threw
    const saved = await h.repos.verdicts.list(h.event.id);
    expect(saved.length).toBeLessThan(asked); // the 3rd call's reply, answered after the abort, was dropped
    expect((await h.repos.feedback.get(h.event.id))!).toMatchObject({ status: 'TRACING', step: null });
    expect(await h.repos.quarantines.list({ feedbackId: h.event.id })).toHaveLength(0);

    const savedTexts = new Set((await h.repos.documents.get(saved.map((v) => v.documentId))).map((d) => d.text));
    const out = await h.pipeline.execute({ feedbackId: h.event.id });
    expect(out.status).toBe('TRACED');
    expect(h.judge.requests.slice(asked).filter((r) => savedTexts.has(r.text))).toEqual([]);
    const verdicts = await h.repos.verdicts.list(h.event.id);
    expect(new Set(verdicts.map((v) => v.documentId)).size).toBe(verdicts.length);
  });

  it('aborted inside a quarantine (between its Postgres and store writes): that quarantine completes, the next decision does not start', async () => {
    const controller = new AbortController();
    const h = await harness({ onFailpoint: (name) => { if (name === 'quarantine.after-db') controller.abort(new Error('lock lost')); } });
    await expect(h.pipeline.execute({ feedbackId: h.event.id, signal: controller.signal })).rejects.toThrow('lock lost');
    const records = await h.repos.quarantines.list({ feedbackId: h.event.id });
    expect(records).toHaveLength(1);
    expect(records[0].storeSynced).toBe(true);
    expect((await h.store.fetch('kb', [records[0].documentId]))[0]!.quarantined).toBe(true);

    const out = await h.pipeline.execute({ feedbackId: h.event.id });
    expect(out.status).toBe('TRACED');
    const after = await h.repos.quarantines.list({ feedbackId: h.event.id });
    expect(after.filter((q) => q.state === 'QUARANTINED')).toHaveLength(PLANTED.length);
    expect(new Set(after.map((q) => q.documentId)).size).toBe(after.length);
  });
});
