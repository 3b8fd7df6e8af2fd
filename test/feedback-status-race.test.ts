/**
 * Status transitions are compare-and-set, so an event never moves backwards. Real Postgres,
 * Redis (BullMQ) and the embedded store; the worker runs in this process (offline judge) while the
 * sweeper and late "enqueue and mark QUEUED" writers (as a slow API request would be) race it.
 * A poller records every status each event shows; each sequence must only move forward.
 */
import { DispatchTracebackUseCase, IngestCorpusUseCase, ReconcilePendingFeedbackUseCase, type FeedbackRow, type FeedbackStatus } from '@forensics/core';
import { createTestApp, type TestApp } from './support/test-app';
import { eventually, uniqueName } from './support/test-runtime';

const RANK: Record<FeedbackStatus, number> = { RECEIVED: 0, QUEUED: 1, TRACING: 2, TRACED: 3, BOUNDED: 3, FAILED: 3 };

const TEXTS = [
  'The Great Barrier Reef lies off the coast of Queensland, Australia.',
  'Mount Kilimanjaro is the highest mountain in Africa, in Tanzania.',
  'The Amazon river flows through Brazil, Peru and Colombia.',
  'The Sahara is the largest hot desert in the world.',
  'Lake Baikal in Siberia is the deepest lake in the world.',
  'The Danube flows through ten countries, including Austria and Hungary.',
  'Mount Everest lies on the border of Nepal and China.',
  'The Atacama desert in Chile is one of the driest places on Earth.',
];

describe('feedback status: the reconciler races a running worker', () => {
  let t: TestApp;
  const collection = uniqueName('race');

  beforeAll(async () => {
    t = await createTestApp({ worker: true, env: { TRACE_K: '2', WORKER_CONCURRENCY: '2', SWEEP_EVERY_MS: '100000', EVIDENCE: 'off' } });
    await t.get(IngestCorpusUseCase).execute({ collection, records: TEXTS.map((text, i) => ({ id: `t${i}`, text })) });
  });
  afterAll(async () => { await t?.close(); });

  it('never moves an event backwards (no QUEUED after TRACING) while reconciler runs and late dispatches race the worker', async () => {
    // Events persisted but never enqueued (as when Redis was down at intake): RECEIVED.
    const stale: FeedbackRow[] = [];
    for (let i = 0; i < 12; i++) {
      const { event } = await t.repos.feedback.create({ collection, query: `where is place number ${i}`, wrongAnswer: `Atlantis ${i}`, k: 2 });
      stale.push(event);
    }
    const ids = stale.map((e) => e.id);
    const seen = new Map<string, FeedbackStatus[]>(ids.map((id) => [id, []]));
    let polling = true;
    const poller = (async () => {
      while (polling) {
        for (const id of ids) {
          const s = (await t.repos.feedback.get(id))!.status;
          const seq = seen.get(id)!;
          if (seq[seq.length - 1] !== s) seq.push(s);
        }
      }
    })();

    const reconcile = t.get(ReconcilePendingFeedbackUseCase);
    const dispatch = t.get(DispatchTracebackUseCase);
    // Racing writers: repeated reconciler runs, and late dispatches holding the stale RECEIVED snapshot.
    const racers = Promise.all([
      (async () => { for (let r = 0; r < 30; r++) { await reconcile.execute({ graceMs: 0 }); await new Promise((res) => setTimeout(res, 20)); } })(),
      (async () => { for (let r = 0; r < 10; r++) { for (const ev of stale) await dispatch.execute({ event: ev }); await new Promise((res) => setTimeout(res, 30)); } })(),
    ]);
    await racers;
    await eventually(async () => {
      const rows = await Promise.all(ids.map((id) => t.repos.feedback.get(id)));
      return rows.every((r) => r && RANK[r.status] === 3);
    }, 120_000, 200);
    polling = false;
    await poller;

    for (const id of ids) {
      const seq = seen.get(id)!;
      for (let i = 1; i < seq.length; i++) expect([id, RANK[seq[i]] >= RANK[seq[i - 1]], seq]).toEqual([id, true, seq]);
      expect(seq[seq.length - 1]).toBe('TRACED');
    }
    // At least some events were observed mid-flight, so the race was real.
    expect([...seen.values()].some((seq) => seq.includes('TRACING'))).toBe(true);

    // A late dispatch of a finished event changes nothing.
    const late = await dispatch.execute({ event: stale[0] });
    expect(late.event.status).toBe('TRACED');
    expect((await t.repos.feedback.get(stale[0].id))!.status).toBe('TRACED');
    // Each event was traced exactly once: one traceback audit entry each.
    for (const id of ids) expect((await t.repos.audit.listFor('FeedbackEvent', id)).filter((a) => a.action.startsWith('traceback.')).length).toBe(1);
  }, 180_000);
});
