import { buildBm25Index, bm25TopK, tokenize } from '@forensics/algorithms';
import type { AuditContext, AuditKindHandler } from '../../../ports/audits.port';
import type { Embedder } from '../../../ports/embedder.port';
import type { Judge } from '../../../ports/judge.port';
import type { FeedbackEventRepository, QuarantineRepository } from '../../../ports/repositories';
import { CORE_SETTINGS, EMBEDDER, FEEDBACK_EVENTS, JUDGE, QUARANTINES, VECTOR_STORE } from '../../../ports/tokens';
import type { CoreSettings } from '../../../settings';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';
import { BTE_PROXY_KIND } from '../../serving/serving-view/serving-view';
import { paraphraseStates, PARAPHRASE_FLOOR, SeedSet } from '@forensics/algorithms';
import { activeRecords, watchedEvents, watchOptions } from '../watchlist';

export interface SiblingSweepAuditDeps {
  quarantines: QuarantineRepository;
  feedback: FeedbackEventRepository;
  store: VectorStore;
  embedder: Embedder;
  judge: Judge;
  settings: CoreSettings;
}

/** Events already swept (the counts so far are the run's own). */
interface SweepCursor { done: string[] }

/**
 * The `sibling-sweep` audit (issue 12). Attackers plant many texts per target (the RAGForensics
 * paper tests up to 40 per query); a traceback stops once K benign texts are left, so the planted
 * texts ranked below its last round stay served. For every watched event (see `watchedEvents`: texts
 * QUARANTINED or withheld while in review, or a trusted report's texts in review) this sweeps the
 * neighbourhood of those texts (the seeds):
 *  - dense: each seed's `k` nearest texts (its own vector) and the event query's top `poolSize`;
 *  - lexical: BM25 over that pool with each seed's words (catches rewrites the encoder ranks lower);
 * and asks the configured judge whether each candidate tries to induce the event's wrong answer —
 * the same question the traceback asked. YES → review (NEEDS_REVIEW kept in serving unless
 * AUDIT_AUTO_QUARANTINE) with the seed, the similarity and the verdict as evidence. A candidate the
 * judge does not call YES still goes to review when it is a paraphrase of the seeds that states their
 * wrong answer: at least as close to one seed as the seeds are to each other (their smallest pair
 * cosine, not below `paraphraseFloor`, default 0.5; one seed alone sets no such bar) and containing the
 * answer. Planted sets are written to one target; the judge misses rewrites that hedge or bury the claim.
 * Siblings found are swept in turn (planted sets are chains of paraphrases), up to maxJudged
 * candidates per event. Resumable event by event. Parameters: k (default 50), poolSize (default 50),
 * lexical (default 10), maxJudged (default 500), paraphraseFloor (default 0.5).
 */
export class SiblingSweepAudit implements AuditKindHandler {
  static readonly inject: InjectMap<SiblingSweepAuditDeps> = { quarantines: QUARANTINES, feedback: FEEDBACK_EVENTS, store: VECTOR_STORE, embedder: EMBEDDER, judge: JUDGE, settings: CORE_SETTINGS };
  readonly kind = 'sibling-sweep' as const;
  constructor(private readonly deps: SiblingSweepAuditDeps) {}

  async execute(ctx: AuditContext): Promise<void> {
    const { quarantines, feedback, store, embedder, judge } = this.deps;
    const collection = ctx.run.collection;
    const num = (key: string, d: number) => { const v = Number(ctx.run.params[key] ?? d); return Number.isFinite(v) && v > 0 ? Math.floor(v) : d; };
    const k = num('k', 50), poolSize = num('poolSize', 50), lexical = num('lexical', 10), maxJudged = num('maxJudged', 500);
    const floor = ctx.run.params.paraphraseFloor === undefined ? PARAPHRASE_FLOOR : Number(ctx.run.params.paraphraseFloor);
    if (!(floor >= -1 && floor <= 1)) throw new RangeError('paraphraseFloor must be in [-1, 1]');
    const cur: SweepCursor = ctx.cursor<SweepCursor>() ?? { done: [] };
    const done = new Set(cur.done);
    const counts: Record<string, number> = { ...ctx.run.counts };
    delete counts.events;
    const bump = (key: string, n = 1) => { counts[key] = (counts[key] ?? 0) + n; };

    const active = await activeRecords(quarantines, collection);
    const withheldOrHeld = new Set([...active.quarantined, ...active.inReview].map((q) => q.documentId));
    // Seeds: per watched event (see watchedEvents), its active records (none for a trusted report whose traceback found nothing).
    const watched = await watchedEvents({ quarantines, feedback }, collection, 100_000, watchOptions(this.deps.settings), active);
    const seedsByEvent = new Map<string, string[]>(watched.map((w) => [w.event.id, w.seedIds]));
    const events = [...seedsByEvent.keys()].sort();
    let n = done.size;
    for (const eventId of events) {
      if (done.has(eventId)) continue;
      const ev = await feedback.get(eventId);
      const seeds = seedsByEvent.get(eventId)!;
      if (ev) {
        const seedRecords = await store.fetch(collection, seeds);
        const [qv] = await embedder.embed([ev.query]);
        const peers = seedRecords.map((r) => r.text);
        const judged = new Set<string>();
        bump('seeds', seeds.length);
        // Round 0: the seeds' neighbours and the query's top-N; later rounds: the neighbours of the
        // siblings just found (planted sets are chains of paraphrases around the target), until a
        // round finds nothing new or `maxJudged` candidates were judged for this event.
        let frontier: { id: string; vector: ArrayLike<number>; text: string }[] = seedRecords;
        const seedSet = SeedSet.of(seedRecords.map((r) => r.vector), floor);
        // A 'no' is no word a text contains: the paraphrase must restate the question instead (paraphraseStates).
        const states = paraphraseStates(ev.query, ev.wrongAnswer);
        let withQuery = true;
        // A watched report without seeds (its traceback found nothing inducing the answer) starts from the query's top-N alone.
        while ((frontier.length > 0 || withQuery) && judged.size < maxJudged) {
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
          // Vectors of the candidates that state the answer, in one read: the paraphrase test needs them.
          const stating = seedSet.active ? poolIds.filter((id) => states(pool.get(id)!.text)) : [];
          const vectorOf = new Map((stating.length ? await store.fetch(collection, stating) : []).map((r) => [r.id, r.vector]));
          const found: string[] = [];
          for (const [id, c] of pool) {
            if (judged.size >= maxJudged) break;
            judged.add(id);
            bump('candidatesJudged');
            const v = await judge.judge({ query: ev.query, wrongAnswer: ev.wrongAnswer, text: c.text, peers });
            // Second route, for texts the judge lets through: a paraphrase of the confirmed poisons (as close to
            // one of them as they are to each other) that states the same wrong answer. Review only: a
            // reviewer sees the seed and the shared answer; the judge's NO stays in the evidence.
            const vec = v.label !== 'YES' ? vectorOf.get(id) : undefined;
            const paraphrase = vec ? seedSet.paraphrase(vec, c.text, states) : null;
            // A verdict inside the judge's confidence band goes to review too, as the decision policy sends it
            // (judge v5: NQ 0.979 -> 0.988 of the planted rewrites found, clean texts to review 133 -> 174).
            const band = v.signals?.confidence === 'band';
            if (v.label !== 'YES' && !paraphrase && !band) continue;
            // A sibling the judge calls YES anchors the paraphrase test too (planted sets are chains of paraphrases;
            // the bar stays the seeds'): HotpotQA 0.959 → 0.968 of the planted rewrites found, clean texts to
            // review 20 → 21; NQ 0.969 → 0.973, 91 → 105. A paraphrase found against the judge's NO anchors nothing.
            if (v.label === 'YES') { const anchor = vectorOf.get(id); if (anchor) seedSet.anchor(anchor); }
            const evidence = {
              eventId, query: ev.query, wrongAnswer: ev.wrongAnswer, seedDocumentId: c.seed, similarity: +c.sim.toFixed(4), via: paraphrase ? 'paraphrase of the seeds stating their wrong answer (judge: not YES)' : c.via,
              ...(paraphrase ? { paraphrase } : {}), judge: { kind: judge.kind, model: judge.model, label: v.label, reply: v.reply.slice(0, 500) },
            };
            if (paraphrase) bump('paraphrasesFound');
            const { quarantineIds, state } = await ctx.review({
              documentIds: [id], evidence,
              reason: paraphrase
                ? `sibling of a quarantined poison of event ${eventId}: a paraphrase of it stating '${ev.wrongAnswer.slice(0, 80)}'`
                : v.label === 'YES'
                  ? `sibling of a quarantined poison of event ${eventId}: judged to induce '${ev.wrongAnswer.slice(0, 80)}'`
                  : `sibling of a quarantined poison of event ${eventId}: the judge's score on inducing '${ev.wrongAnswer.slice(0, 80)}' is inside its confidence band (label ${v.label}): a reviewer decides`,
            });
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
