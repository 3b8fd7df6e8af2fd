import type { AuditContext, AuditKindHandler } from '../../../ports/audits.port';
import type { Embedder } from '../../../ports/embedder.port';
import type { DocumentRepository, DocumentRow, EnhancementRepository } from '../../../ports/repositories';
import { DOCUMENTS, EMBEDDER, ENHANCEMENTS, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';
import { documentOfStorePoint, isUuid } from '../../../domain/store-point';
import { BTE_PROXY_KIND } from '../../serving/serving-view/serving-view';
import { SyncQuarantinesUseCase } from '../../quarantine/sync-quarantines/sync-quarantines.use-case';

export interface ReconcileAuditDeps {
  documents: DocumentRepository;
  enhancements: EnhancementRepository;
  store: VectorStore;
  embedder: Embedder;
  syncQuarantines: SyncQuarantinesUseCase;
}

/** Where a resumed run continues: the phase and the last id done in it (the counts so far are the run's own). */
interface ReconcileCursor { phase: 'store' | 'registry' | 'proxies'; after: string | null }

const DEFAULT_PAGE = 1000;
const EXCERPT = 200;

/**
 * The `reconcile` audit (issue 12): Postgres (documents and their serving status, enhancement
 * proxies) against the vector store (points and their quarantine flags), in both directions.
 * Repairs what has one right answer, reports the rest, deletes nothing:
 *
 *  | finding          | seen as                                                       | action |
 *  |------------------|---------------------------------------------------------------|--------|
 *  | `unsynced`       | quarantine records whose store write never completed          | repaired (SyncQuarantines) |
 *  | `flag-missing`   | Postgres withholds the text (status QUARANTINED/PURGED), the store serves it | repaired: flag set |
 *  | `flag-extra`     | the store withholds a text Postgres serves (ACTIVE)           | repaired: flag cleared |
 *  | `point-unknown`  | a store point the registry does not know (written around the service) | reported (kept as it is: its origin is unknown; a reviewer decides); with the run parameter `register: true`, registered as it stands (text, id, externalId from its payload) and still served — what an attached store needs before a vetted baseline can cover it (decision 0320) |
 *  | `point-missing`  | a registered, non-purged text with no point                    | repaired (re-embedded from Postgres's text with the collection's own encoder, flag as its status) or reported when the encoder differs |
 *  | `proxy-orphan`   | an enhancement proxy point with no active enhancement          | repaired: withheld by flag (reversible; the point is kept) |
 *  | `proxy-missing`  | an active enhancement whose proxy point is gone                | repaired: the proxy re-created from the enhancement row |
 *
 * Phases: store → registry (points, page by page), registry → store (documents, page by page),
 * enhancements → proxies. The cursor (phase, last id, counts) is checkpointed after every page.
 */
export class ReconcileAudit implements AuditKindHandler {
  static readonly inject: InjectMap<ReconcileAuditDeps> = {
    documents: DOCUMENTS, enhancements: ENHANCEMENTS, store: VECTOR_STORE, embedder: EMBEDDER, syncQuarantines: SyncQuarantinesUseCase,
  };
  readonly kind = 'reconcile' as const;
  constructor(private readonly deps: ReconcileAuditDeps) {}

  async execute(ctx: AuditContext): Promise<void> {
    const { store, documents } = this.deps;
    const collection = ctx.run.collection;
    if (!store.listPage) throw new Error(`the ${store.kind} store cannot list its points: reconcile needs VectorStore.listPage`);
    const PAGE = pageSizeOf(ctx.run.params);
    const cur: ReconcileCursor = ctx.cursor<ReconcileCursor>() ?? { phase: 'store', after: null };
    const counts: Record<string, number> = { ...ctx.run.counts };
    const bump = (k: string, n = 1) => { counts[k] = (counts[k] ?? 0) + n; };
    const save = async (phase: ReconcileCursor['phase'], after: string | null, done: number, total: number | null, label: string) =>
      ctx.checkpoint({ cursor: { phase, after } satisfies ReconcileCursor, counts: { ...counts }, progress: { done, total, phase: label } });

    if (cur.phase === 'store' && cur.after === null) {
      const synced = await this.deps.syncQuarantines.execute();
      if (synced > 0) {
        bump('unsynced.found', synced); bump('unsynced.repaired', synced);
        await ctx.finding({ type: 'unsynced', action: 'repaired', documentIds: [], detail: { records: synced, note: 'quarantine records whose store write had not completed were synced' } });
      }
    }
    const totalPoints = await store.count(collection);
    const totalDocs = await documents.count(collection);

    // 1. Store → registry.
    if (cur.phase === 'store') {
      let after = cur.after;
      for (;;) {
        const page = await store.listPage(collection, { after, limit: PAGE, withText: true });
        await this.checkPoints(ctx, page.records, bump);
        bump('pointsChecked', page.records.length);
        after = page.next;
        await save(after === null ? 'registry' : 'store', after === null ? null : after, counts.pointsChecked ?? 0, totalPoints, 'store → registry');
        if (after === null) break;
      }
      cur.phase = 'registry';
      cur.after = null;
    }
    // 2. Registry → store.
    if (cur.phase === 'registry') {
      let after = cur.after;
      for (;;) {
        const docs = await documents.listPage(collection, { after, limit: PAGE });
        if (docs.length > 0) await this.checkDocuments(ctx, docs, bump);
        bump('documentsChecked', docs.length);
        after = docs.length === PAGE ? docs[docs.length - 1]!.id : null;
        await save(after === null ? 'proxies' : 'registry', after, counts.documentsChecked ?? 0, totalDocs, 'registry → store');
        if (after === null) break;
      }
      cur.phase = 'proxies';
    }
    // 3. Enhancements → proxy points.
    if (cur.phase === 'proxies' && cur.after === null) await this.checkEnhancements(ctx, bump);
    await save('proxies', 'done', counts.documentsChecked ?? 0, totalDocs, 'done');
  }

  private async checkPoints(
    ctx: AuditContext, points: readonly { id: string; quarantined: boolean; payload: Record<string, unknown>; text?: string }[], bump: (k: string, n?: number) => void,
  ): Promise<void> {
    const { store, documents, enhancements } = this.deps;
    const collection = ctx.run.collection;
    const proxies = points.filter((p) => p.payload.kind === BTE_PROXY_KIND);
    if (proxies.length > 0) {
      const active = new Set((await enhancements.findActiveByProxyIds(proxies.map((p) => p.id))).map((e) => e.proxyId));
      const orphans = proxies.filter((p) => !active.has(p.id) && !p.quarantined);
      if (orphans.length > 0) {
        await store.setQuarantined(collection, orphans.map((p) => p.id), true);
        bump('proxy-orphan.found', orphans.length); bump('proxy-orphan.repaired', orphans.length);
        await ctx.finding({
          type: 'proxy-orphan', action: 'repaired', documentIds: orphans.map((p) => p.id),
          detail: { repair: 'withheld by the quarantine flag (the point is kept; clear the flag to undo)', feedbackIds: orphans.map((p) => p.payload.feedbackId ?? null) },
        });
      }
    }
    const texts = points.filter((p) => p.payload.kind !== BTE_PROXY_KIND);
    if (texts.length === 0) return;
    const known = new Map((await documents.get(texts.map((p) => p.id))).map((d) => [d.id, d]));
    let unknown = texts.filter((p) => !known.has(p.id));
    if (ctx.run.params.register === true && unknown.length > 0) {
      // Registered as the store holds them (a text already registered under another id, or an id that is not a UUID, stays reported).
      const rows = unknown.filter((p) => typeof p.text === 'string' && p.text.trim() !== '' && isUuid(p.id)).map((p) => documentOfStorePoint(collection, { ...p, text: p.text! }));
      if (rows.length) await documents.insert(rows);
      const registered = new Set((await documents.get(rows.map((r) => r.id))).map((d) => d.id));
      const done = unknown.filter((p) => registered.has(p.id));
      if (done.length > 0) {
        bump('point-unknown.found', done.length); bump('point-unknown.repaired', done.length);
        await ctx.finding({ type: 'point-unknown', action: 'repaired', documentIds: done.map((p) => p.id), detail: { repair: 'registered in Postgres as the store holds it (run parameter register); served as before' } });
      }
      unknown = unknown.filter((p) => !registered.has(p.id));
    }
    for (const p of unknown) {
      bump('point-unknown.found'); bump('point-unknown.reported');
      await ctx.finding({
        type: 'point-unknown', action: 'reported', documentIds: [p.id],
        detail: { served: !p.quarantined, textExcerpt: (p.text ?? '').slice(0, EXCERPT), payload: p.payload, note: 'a point the registry does not know (written to the store around the service): kept as it is' },
      });
    }
    const setFlag: string[] = [];
    const clearFlag: string[] = [];
    for (const p of texts) {
      const d = known.get(p.id);
      if (!d) continue;
      const withheld = d.status !== 'ACTIVE';
      if (withheld && !p.quarantined) setFlag.push(p.id);
      if (!withheld && p.quarantined) clearFlag.push(p.id);
    }
    if (setFlag.length > 0) {
      await store.setQuarantined(collection, setFlag, true);
      bump('flag-missing.found', setFlag.length); bump('flag-missing.repaired', setFlag.length);
      await ctx.finding({ type: 'flag-missing', action: 'repaired', documentIds: setFlag, detail: { repair: 'quarantine flag set: Postgres withholds these texts' } });
    }
    if (clearFlag.length > 0) {
      await store.setQuarantined(collection, clearFlag, false);
      bump('flag-extra.found', clearFlag.length); bump('flag-extra.repaired', clearFlag.length);
      await ctx.finding({ type: 'flag-extra', action: 'repaired', documentIds: clearFlag, detail: { repair: 'quarantine flag cleared: Postgres serves these texts (ACTIVE)' } });
    }
  }

  private async checkDocuments(ctx: AuditContext, docs: readonly DocumentRow[], bump: (k: string, n?: number) => void): Promise<void> {
    const { store, documents, embedder } = this.deps;
    const collection = ctx.run.collection;
    const present = new Set((await store.fetch(collection, docs.map((d) => d.id))).map((r) => r.id));
    const missing = docs.filter((d) => !present.has(d.id) && d.status !== 'PURGED');
    if (missing.length === 0) return;
    const col = await documents.getCollection(collection);
    if (!col || col.embedder !== embedder.id || col.dimension !== embedder.dimension) {
      bump('point-missing.found', missing.length); bump('point-missing.reported', missing.length);
      await ctx.finding({
        type: 'point-missing', action: 'reported', documentIds: missing.map((d) => d.id),
        detail: { reason: `the collection was embedded with ${col?.embedder ?? 'an unknown encoder'}, this process runs ${embedder.id}: re-ingest these texts with that encoder` },
      });
      return;
    }
    const vectors = await embedder.embed(missing.map((d) => d.text));
    await store.upsert(collection, missing.map((d, i) => ({ id: d.id, vector: vectors[i]!, text: d.text, payload: { externalId: d.externalId, metadata: d.metadata } })));
    const withheld = missing.filter((d) => d.status !== 'ACTIVE').map((d) => d.id);
    if (withheld.length > 0) await store.setQuarantined(collection, withheld, true);
    bump('point-missing.found', missing.length); bump('point-missing.repaired', missing.length);
    await ctx.finding({
      type: 'point-missing', action: 'repaired', documentIds: missing.map((d) => d.id),
      detail: { repair: `re-embedded from the registered text with ${embedder.id} and upserted`, withheld: withheld.length },
    });
  }

  private async checkEnhancements(ctx: AuditContext, bump: (k: string, n?: number) => void): Promise<void> {
    const { store, enhancements, embedder } = this.deps;
    const collection = ctx.run.collection;
    const active = await enhancements.list({ collection, state: 'ACTIVE' });
    if (active.length === 0) return;
    const present = new Map((await store.fetch(collection, active.map((e) => e.proxyId))).map((r) => [r.id, r]));
    const missing = active.filter((e) => !present.has(e.proxyId));
    bump('enhancementsChecked', active.length);
    if (missing.length === 0) return;
    const vectors = await embedder.embed(missing.map((e) => e.query));
    await store.upsert(collection, missing.map((e, i) => ({
      id: e.proxyId, vector: vectors[i]!, text: e.benignText, payload: { kind: BTE_PROXY_KIND, feedbackId: e.feedbackId, query: e.query },
    })));
    bump('proxy-missing.found', missing.length); bump('proxy-missing.repaired', missing.length);
    await ctx.finding({
      type: 'proxy-missing', action: 'repaired', documentIds: missing.map((e) => e.proxyId),
      detail: { repair: 'proxy re-created from the enhancement row (query embedded again)', enhancementIds: missing.map((e) => e.id) },
    });
  }
}

/** `pageSize` run parameter (10–10,000; default 1,000): points and documents per page and checkpoint. */
function pageSizeOf(params: Record<string, unknown>): number {
  const n = Number(params.pageSize ?? DEFAULT_PAGE);
  return Number.isFinite(n) ? Math.min(10_000, Math.max(1, Math.floor(n))) : DEFAULT_PAGE;
}
