import { acceptRetrieval, acceptVerdicts, initTrace, nextRetrieval, type Label, type TraceState } from '@forensics/algorithms';
import { AUDIT_RUNS, type AuditContext, type AuditKindHandler, type AuditRunRepository } from '../../../ports/audits.port';
import type { Embedder } from '../../../ports/embedder.port';
import type { Judge } from '../../../ports/judge.port';
import type { DocumentRepository, EnhancementRepository, FeedbackEventRepository, FeedbackRow, QuarantineRepository, VerdictRepository } from '../../../ports/repositories';
import { CORE_SETTINGS, DOCUMENTS, EMBEDDER, ENHANCEMENTS, FEEDBACK_EVENTS, JUDGE, QUARANTINES, VECTOR_STORE, VERDICTS } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { CoreSettings } from '../../../settings';
import type { InjectMap } from '../../../use-case';
import { mapPool } from '../../../util/pool';
import { cachedVerdict } from '../../traceback/run-traceback/verdict-cache';
import { activeRecords, watchedEvents, watchOptions } from '../watchlist';
import { servedContextOf } from '../../traceback/served-context';

export interface ReTraceAuditDeps {
  runs: AuditRunRepository;
  quarantines: QuarantineRepository;
  feedback: FeedbackEventRepository;
  documents: DocumentRepository;
  verdicts: VerdictRepository;
  enhancements: EnhancementRepository;
  store: VectorStore;
  embedder: Embedder;
  judge: Judge;
  settings: CoreSettings;
}

/**
 * Events already replayed by this run (a killed run resumes after the last one), and per event the
 * texts judged NO by re-traces (carried from the last successful run, so a scheduled run judges only
 * what is new in the ranking).
 */
interface ReTraceCursor { done: string[]; benign?: Record<string, string[]> }

const EXCERPT = 300;
/** Benign texts the replay must reach: twice the default K, like the admission check's top-N (what paraphrases of the question would be served). */
const DEFAULT_DEPTH = 10;

/**
 * The `re-trace` audit (issue 12): replays every watched attack — an event whose traceback
 * quarantined texts, or a trusted report not cleared by a reviewer (see `watchedEvents`) — against the
 * collection as it is served NOW.
 *
 * Why on a schedule as well as the admission check at ingestion: the admission check sees only texts
 * that come in through our ingest API, one batch at a time, and ranks them against the watched
 * query's top-N of that moment. Texts written to the store around the service, a batch whose texts
 * only rank high together, an encoder or corpus change that moves old texts up, or an admission check
 * that was switched off, all leave poison served for a watched question. The re-trace asks the same
 * question the traceback asked, on the current ranking.
 *
 * Per event, the RAGForensics loop of `@forensics/algorithms` (the same state machine the traceback
 * drives) run to `depth` benign texts instead of the event's K (default 10: what a paraphrase of the
 * question could be served, and the planted texts a K-bounded loop stops short of): retrieve the served top-K (quarantined and withheld texts are not served, enhancement
 * proxies are ours and excluded), judge what is new against the event's (query, wrong answer), set
 * aside YES, retrieve again, until K benign texts remain or the trace bounds are hit. Texts the event
 * already judged are not judged again: its NO verdicts stand, and a text it judged YES that is served
 * again was restored by a reviewer (or is in review, served) — a human decided, so it counts as benign
 * here; a text in review and still served is set aside without a new finding. Verdicts from the shared verdict cache (same text, question, answer, judge model and prompt)
 * are reused, so with an LLM judge a quiet corpus costs no judge call.
 *
 * A text judged YES is sent to review (NEEDS_REVIEW, kept in serving like every audit finding;
 * quarantined outright only when AUDIT_AUTO_QUARANTINE says so), one finding per text with the event,
 * its rank and the judge's reply. Not withheld because a replay to depth 10 judges true texts the
 * traceback never judged, and the offline judge says YES to some that merely mention the answer
 * elsewhere: in the eval:audit measurement 14 of its 61 findings were clean texts on NQ, 24 of 65 on HotpotQA.
 * UNDETERMINED verdicts are counted, not sent.
 *
 * Parameters: `depth` (default 10, at least the event's K), `maxEvents` (default 1000: newest watched
 * events first), `eventId` (replay one event).
 * Counts: events, candidatesJudged, cachedVerdicts, poisonsFound, eventsReattacked (events with at
 * least one new poison), poisonInTopK (new poisons that were in the served top-K when the run
 * looked: what a user asking the watched question was being served), undetermined, unregistered.
 */
export class ReTraceAudit implements AuditKindHandler {
  static readonly inject: InjectMap<ReTraceAuditDeps> = {
    runs: AUDIT_RUNS, quarantines: QUARANTINES, feedback: FEEDBACK_EVENTS, documents: DOCUMENTS, verdicts: VERDICTS, enhancements: ENHANCEMENTS,
    store: VECTOR_STORE, embedder: EMBEDDER, judge: JUDGE, settings: CORE_SETTINGS,
  };
  readonly kind = 're-trace' as const;
  constructor(private readonly deps: ReTraceAuditDeps) {}

  async execute(ctx: AuditContext): Promise<void> {
    const collection = ctx.run.collection;
    const raw = ctx.run.params;
    const maxEvents = raw.maxEvents === undefined ? 1000 : Number(raw.maxEvents);
    if (!Number.isInteger(maxEvents) || maxEvents < 1) throw new RangeError('maxEvents must be a positive integer');
    const depth = raw.depth === undefined ? DEFAULT_DEPTH : Number(raw.depth);
    if (!Number.isInteger(depth) || depth < 1 || depth > 100) throw new RangeError('depth must be an integer in [1, 100]');
    const only = typeof raw.eventId === 'string' ? raw.eventId : null;
    const cur = ctx.cursor<ReTraceCursor>() ?? { done: [], benign: await this.previousBenign(collection) };
    const done = new Set(cur.done);
    const benign: Record<string, string[]> = { ...cur.benign };
    const counts: Record<string, number> = { events: done.size, ...ctx.run.counts };
    const bump = (key: string, n = 1) => { counts[key] = (counts[key] ?? 0) + n; };

    const active = await activeRecords(this.deps.quarantines, collection);
    let watched = await watchedEvents(this.deps, collection, maxEvents, watchOptions(this.deps.settings), active);
    if (only) watched = watched.filter((w) => w.event.id === only);
    await this.deps.embedder.init();
    const proxyIds = (await this.deps.enhancements.list({ collection, state: 'ACTIVE' })).map((e) => e.proxyId);
    // Texts in review and still served (earlier findings, band verdicts): set aside, not judged or found again.
    const inReview = new Set(active.inReview.map((q) => q.documentId));
    await ctx.checkpoint({ progress: { done: done.size, total: watched.length, phase: 'events replayed' } });
    for (const { event } of watched) {
      if (done.has(event.id)) continue;
      benign[event.id] = await this.replay(ctx, event, depth, new Set(benign[event.id] ?? []), inReview, proxyIds, bump);
      done.add(event.id);
      counts.events = done.size;
      await ctx.checkpoint({ cursor: { done: [...done], benign } satisfies ReTraceCursor, counts: { ...counts }, progress: { done: done.size, total: watched.length, phase: 'events replayed' } });
    }
    await ctx.checkpoint({ counts: { ...counts }, progress: { done: done.size, total: watched.length, phase: 'done' } });
  }

  /** The benign memory of the last successful re-trace of this collection (empty on the first). */
  private async previousBenign(collection: string): Promise<Record<string, string[]>> {
    const [last] = await this.deps.runs.list({ kind: 're-trace', collection, status: 'SUCCEEDED', limit: 1 });
    return (last?.cursor as ReTraceCursor | null)?.benign ?? {};
  }

  /** Replays one event; returns the texts judged NO (this run's and the remembered ones still in its ranking). */
  private async replay(
    ctx: AuditContext, ev: FeedbackRow, depth: number, knownBenign: ReadonlySet<string>, inReview: Set<string>, proxyIds: readonly string[], bump: (key: string, n?: number) => void,
  ): Promise<string[]> {
    const { documents, verdicts, store, embedder, judge, settings } = this.deps;
    const listed = await verdicts.list(ev.id);
    const prior = new Map(listed.map((v) => [v.documentId, v.label] as const));
    // The answer is read against what the event's user was served, as the traceback read it (not this replay's top K).
    const context = await servedContextOf(documents, listed);
    const [qvec] = await embedder.embed([ev.query]);
    let state: TraceState = initTrace({ k: Math.max(ev.k, depth), maxRounds: settings.trace.maxRounds, maxJudgeCalls: settings.trace.maxJudgeCalls });
    const hitInfo = new Map<string, { rank: number; score: number; round: number; text: string }>();
    const found: string[] = [];
    for (;;) {
      const req = nextRetrieval(state);
      if (!req) break;
      const hits = await store.search(ev.collection, { vector: qvec!, k: req.k, excludeIds: [...req.excludeIds, ...proxyIds] });
      const round = state.round + 1;
      hits.forEach((h, i) => { if (!hitInfo.has(h.id)) hitInfo.set(h.id, { rank: i + 1, score: h.score, round, text: h.text }); });
      const r = acceptRetrieval(state, hits.map((h) => h.id));
      state = r.state;
      if (!r.toJudge.length) continue;
      const docs = new Map((await documents.get(r.toJudge)).map((d) => [d.id, d]));
      const peers = r.toJudge.map((id) => docs.get(id)?.text).filter((t): t is string => !!t);
      const labels: Record<string, Label> = {};
      const replies = new Map<string, string>();
      await mapPool(r.toJudge, settings.trace.judgeConcurrency, async (id) => {
        if (inReview.has(id)) { labels[id] = 'YES'; return; } // awaiting a reviewer already
        const before = prior.get(id);
        // Judged by the event itself: NO stands; YES but served again = a reviewer restored it (or it is in review, served).
        if (before !== undefined) { labels[id] = before === 'UNDETERMINED' ? 'UNDETERMINED' : 'NO'; return; }
        if (knownBenign.has(id)) { labels[id] = 'NO'; return; } // an earlier re-trace judged it NO
        const doc = docs.get(id);
        if (!doc) { labels[id] = 'UNDETERMINED'; bump('unregistered'); return; } // written around the service: reconcile reports it
        const { hit: cached } = await cachedVerdict(verdicts, judge, { textHash: doc.textHash, query: ev.query, wrongAnswer: ev.wrongAnswer });
        if (cached) {
          bump('cachedVerdicts');
          labels[id] = cached.label;
          replies.set(id, cached.reply);
          return;
        }
        bump('candidatesJudged');
        const v = await judge.judge({ query: ev.query, wrongAnswer: ev.wrongAnswer, text: doc.text, peers: peers.filter((p) => p !== doc.text), context });
        labels[id] = v.label;
        replies.set(id, v.reply);
      });
      for (const id of r.toJudge) {
        if (labels[id] === 'UNDETERMINED' && replies.has(id)) bump('undetermined');
        if (labels[id] !== 'YES' || !replies.has(id)) continue;
        found.push(id);
        const hit = hitInfo.get(id)!;
        if (hit.round === 1 && hit.rank <= ev.k) bump('poisonInTopK');
        const evidence = {
          eventId: ev.id, query: ev.query, wrongAnswer: ev.wrongAnswer, round: hit.round, rank: hit.rank, similarity: +hit.score.toFixed(4),
          excerpt: hit.text.slice(0, EXCERPT), judge: { kind: judge.kind, model: judge.model, label: 'YES', reply: replies.get(id)!.slice(0, 500) },
        };
        const { quarantineIds, state: recState } = await ctx.review({
          documentIds: [id], evidence,
          reason: `re-trace of attacked question (event ${ev.id}): judged to induce '${ev.wrongAnswer.slice(0, 80)}'`,
        });
        bump('poisonsFound');
        inReview.add(id);
        await ctx.finding({ type: 're-trace', action: recState === 'QUARANTINED' ? 'quarantined' : 'review', documentIds: [id], quarantineIds, score: hit.score, detail: evidence });
      }
      state = acceptVerdicts(state, labels);
    }
    if (found.length) bump('eventsReattacked');
    if (state.status === 'BOUNDED') bump('eventsBounded');
    ctx.log(`re-trace ${ev.id}: ${found.length} new poison(s), ${state.status}`, { eventId: ev.id, found: found.length, status: state.status });
    return state.benign.filter((id) => !prior.has(id));
  }
}
