import { buildBm25Index, bm25TopK, tokenize } from '@forensics/algorithms';
import type { AuditContext, AuditKindHandler } from '../../../ports/audits.port';
import type { Embedder } from '../../../ports/embedder.port';
import type { Judge } from '../../../ports/judge.port';
import type { FeedbackEventRepository, QuarantineRepository, QuarantineRow } from '../../../ports/repositories';
import { EMBEDDER, FEEDBACK_EVENTS, JUDGE, QUARANTINES, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';
import { BTE_PROXY_KIND } from '../../serving/serving-view';

export interface SiblingSweepAuditDeps {
  quarantines: QuarantineRepository;
  feedback: FeedbackEventRepository;
  store: VectorStore;
  embedder: Embedder;
  judge: Judge;
}

/** Events already swept (the counts so far are the run's own). */
interface SweepCursor { done: string[] }

/**
 * The `sibling-sweep` audit (issue 12). Attackers plant many texts per target (the RAGForensics
 * paper tests up to 40 per query); a traceback stops once K benign texts are left, so the planted
 * texts ranked below its last round stay served. For every attacked event — one with a text
 * QUARANTINED (or a reviewer's approve) — this sweeps the seed poisons' neighbourhood:
 *  - dense: each seed's `k` nearest texts (its own vector) and the event query's top `poolSize`;
 *  - lexical: BM25 over that pool with each seed's words (catches rewrites the encoder ranks lower);
 * and asks the configured judge whether each candidate tries to induce the event's wrong answer —
 * the same question the traceback asked. YES → review (NEEDS_REVIEW kept in serving unless
 * AUDIT_AUTO_QUARANTINE) with the seed, the similarity and the verdict as evidence.
 * Siblings found are swept in turn (planted sets are chains of paraphrases), up to maxJudged
 * candidates per event. Resumable event by event. Parameters: k (default 20), poolSize (default 50),
 * lexical (default 10), maxJudged (default 500).
 */
export class SiblingSweepAudit implements AuditKindHandler {
  static readonly inject: InjectMap<SiblingSweepAuditDeps> = { quarantines: QUARANTINES, feedback: FEEDBACK_EVENTS, store: VECTOR_STORE, embedder: EMBEDDER, judge: JUDGE };
  readonly kind = 'sibling-sweep' as const;
  constructor(private readonly deps: SiblingSweepAuditDeps) {}

  async execute(ctx: AuditContext): Promise<void> {
    const { quarantines, feedback, store, embedder, judge } = this.deps;
    const collection = ctx.run.collection;
    const num = (key: string, d: number) => { const v = Number(ctx.run.params[key] ?? d); return Number.isFinite(v) && v > 0 ? Math.floor(v) : d; };
    const k = num('k', 20), poolSize = num('poolSize', 50), lexical = num('lexical', 10), maxJudged = num('maxJudged', 500);
    const cur: SweepCursor = ctx.cursor<SweepCursor>() ?? { done: [] };
    const done = new Set(cur.done);
    const counts: Record<string, number> = { ...ctx.run.counts };
    delete counts.events;
    const bump = (key: string, n = 1) => { counts[key] = (counts[key] ?? 0) + n; };

    const active = [
      ...(await quarantines.list({ collection, state: 'QUARANTINED', limit: 100_000 })),
      ...(await quarantines.list({ collection, state: 'NEEDS_REVIEW', limit: 100_000 })),
    ];
    const withheldOrHeld = new Set(active.map((q) => q.documentId));
    const seedsByEvent = new Map<string, QuarantineRow[]>();
    for (const q of active) {
      if (q.state !== 'QUARANTINED' || !q.feedbackId) continue;
      const list = seedsByEvent.get(q.feedbackId) ?? [];
      list.push(q);
      seedsByEvent.set(q.feedbackId, list);
    }
    const events = [...seedsByEvent.keys()].sort();
    let n = done.size;
    for (const eventId of events) {
      if (done.has(eventId)) continue;
      const ev = await feedback.get(eventId);
      const seeds = seedsByEvent.get(eventId)!;
      if (ev) {
        const seedRecords = await store.fetch(collection, seeds.map((s) => s.documentId));
        const [qv] = await embedder.embed([ev.query]);
        const peers = seedRecords.map((r) => r.text);
        const judged = new Set<string>();
        bump('seeds', seeds.length);
        // Round 0: the seeds' neighbours and the query's top-N; later rounds: the neighbours of the
        // siblings just found (planted sets are chains of paraphrases around the target), until a
        // round finds nothing new or `maxJudged` candidates were judged for this event.
        let frontier: { id: string; vector: ArrayLike<number>; text: string }[] = seedRecords;
        let withQuery = true;
        while (frontier.length > 0 && judged.size < maxJudged) {
          const requests = [...frontier.map((r) => ({ vector: r.vector, k, includeQuarantined: false })), ...(withQuery ? [{ vector: qv!, k: poolSize, includeQuarantined: false }] : [])];
          const hits = await store.searchBatch(collection, requests);
          const pool = new Map<string, { text: string; sim: number; seed: string | null; via: string }>();
          hits.forEach((list, i) => {
            const seed = i < frontier.length ? frontier[i]!.id : null;
            for (const h of list) {
              if (h.payload.kind === BTE_PROXY_KIND || withheldOrHeld.has(h.id) || judged.has(h.id)) continue;
              const prev = pool.get(h.id);
              if (!prev || (seed && (prev.seed === null || h.score > prev.sim))) pool.set(h.id, { text: h.text, sim: h.score, seed, via: seed ? 'dense: neighbour of a poison' : 'dense: query top-N' });
            }
          });
          // Lexical: BM25 over the pool with each frontier text's words.
          const poolIds = [...pool.keys()];
          if (poolIds.length > 0) {
            const index = buildBm25Index(poolIds.map((id) => tokenize(pool.get(id)!.text)));
            for (const f of frontier) {
              for (const hit of bm25TopK(index, tokenize(f.text), lexical)) {
                const c = pool.get(poolIds[hit.index]!)!;
                if (c.via === 'dense: query top-N') { c.via = 'lexical: BM25 with a poison\'s words'; c.seed = f.id; }
              }
            }
          }
          withQuery = false;
          const found: string[] = [];
          for (const [id, c] of pool) {
            if (judged.size >= maxJudged) break;
            judged.add(id);
            bump('candidatesJudged');
            const v = await judge.judge({ query: ev.query, wrongAnswer: ev.wrongAnswer, text: c.text, peers });
            if (v.label !== 'YES') continue;
            const evidence = { eventId, query: ev.query, wrongAnswer: ev.wrongAnswer, seedDocumentId: c.seed, similarity: +c.sim.toFixed(4), via: c.via, judge: { kind: judge.kind, model: judge.model, label: v.label, reply: v.reply.slice(0, 500) } };
            const { quarantineIds, state } = await ctx.review({ documentIds: [id], reason: `sibling of a quarantined poison of event ${eventId}: judged to induce '${ev.wrongAnswer.slice(0, 80)}'`, evidence });
            withheldOrHeld.add(id);
            bump('siblingsFound');
            await ctx.finding({ type: 'sibling', action: state === 'QUARANTINED' ? 'quarantined' : 'review', documentIds: [id], quarantineIds, score: c.sim, detail: evidence });
            found.push(id);
          }
          // The siblings found are the next round's seeds (one fetch for their vectors).
          frontier = found.length > 0 ? await store.fetch(collection, found) : [];
        }
      }
      done.add(eventId);
      n++;
      await ctx.checkpoint({ cursor: { done: [...done] } satisfies SweepCursor, counts: { ...counts, events: n }, progress: { done: n, total: events.length, phase: 'events swept' } });
    }
    await ctx.checkpoint({ counts: { ...counts, events: n }, progress: { done: n, total: events.length, phase: 'done' } });
  }
}
