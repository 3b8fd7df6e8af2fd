import { documentOfStorePoint } from '../../../domain/store-point';
import { textHash } from '../../../domain/text-identity';
import type { AuditLogRepository, DocumentRepository, FeedbackRow } from '../../../ports/repositories';
import type { ScoredHit, VectorStore } from '../../../ports/vector-store.port';

export interface RegisterUnknownDeps {
  documents: DocumentRepository;
  store: VectorStore;
  audit: AuditLogRepository;
  /** Who the audit entry names (WORKER_ACTOR). */
  actor: string;
}

/**
 * Texts found in the store but unknown to Postgres (a collection filled by another pipeline, or
 * vectors left by older versions) are registered on the fly. A store text whose hash is already
 * registered under another id (one text, two vectors: Postgres allows one row per text) is
 * folded into the registered document: its vector is written under the document's id when the
 * document has none in the store (flagged quarantined unless the document is ACTIVE; a PURGED
 * text gets none back), then the duplicate point is deleted — the store never serves a text
 * Postgres does not know. (On an attached Qdrant collection the adapter's delete hides the app's
 * point with the quarantine flag instead of deleting it, and the upsert goes to our own
 * collection: the app's data is never removed.) Returns true when it changed the store (the
 * caller searches again).
 */
export async function registerUnknown(deps: RegisterUnknownDeps, ev: FeedbackRow, hits: readonly ScoredHit[]): Promise<boolean> {
  if (!hits.length) return false;
  const { documents, store } = deps;
  const known = new Set((await documents.get(hits.map((h) => h.id))).map((d) => d.id));
  const missing = hits.filter((h) => !known.has(h.id)).map((h) => ({ hit: h, hash: textHash(h.text) }));
  if (!missing.length) return false;
  const registered = new Map((await documents.findByHashes(ev.collection, [...new Set(missing.map((m) => m.hash))])).map((d) => [d.textHash, d]));
  const fresh = missing.filter((m) => !registered.has(m.hash));
  // Two unknown points with one text: the first is registered, the other is a duplicate of it.
  const firstByHash = new Map<string, string>();
  for (const m of fresh) if (!firstByHash.has(m.hash)) firstByHash.set(m.hash, m.hit.id);
  const toRegister = fresh.filter((m) => firstByHash.get(m.hash) === m.hit.id);
  if (toRegister.length) {
    await documents.insert(toRegister.map(({ hit }) => documentOfStorePoint(ev.collection, hit)));
  }
  // Whatever is still unregistered by id (a duplicate of a registered text, or a concurrent
  // registration of the same text under another id) is folded into the registered document.
  const stillUnknown = new Set(missing.map((m) => m.hit.id));
  for (const d of await documents.get([...stillUnknown])) stillUnknown.delete(d.id);
  if (!stillUnknown.size) return false;
  const owners = new Map((await documents.findByHashes(ev.collection, [...new Set(missing.filter((m) => stillUnknown.has(m.hit.id)).map((m) => m.hash))])).map((d) => [d.textHash, d]));
  const dups = missing.filter((m) => stillUnknown.has(m.hit.id) && owners.has(m.hash)).map((m) => ({ ...m, owner: owners.get(m.hash)! }));
  if (!dups.length) return false;
  const ownerIds = [...new Set(dups.map((d) => d.owner.id))];
  const present = new Set((await store.fetch(ev.collection, ownerIds)).map((r) => r.id));
  const needVector = new Map<string, (typeof dups)[number]>();
  for (const d of dups) if (!present.has(d.owner.id) && d.owner.status !== 'PURGED' && !needVector.has(d.owner.id)) needVector.set(d.owner.id, d);
  if (needVector.size) {
    const vectors = new Map((await store.fetch(ev.collection, [...needVector.values()].map((d) => d.hit.id))).map((r) => [r.id, r]));
    const records = [...needVector.values()].filter((d) => vectors.has(d.hit.id)).map((d) => ({
      id: d.owner.id, vector: vectors.get(d.hit.id)!.vector, text: d.owner.text, payload: { externalId: d.owner.externalId, metadata: d.owner.metadata },
    }));
    if (records.length) {
      await store.upsert(ev.collection, records);
      const flagged = records.filter((r) => needVector.get(r.id)!.owner.status !== 'ACTIVE').map((r) => r.id);
      if (flagged.length) await store.setQuarantined(ev.collection, flagged, true);
    }
  }
  await store.delete(ev.collection, dups.map((d) => d.hit.id));
  await deps.audit.append({
    actor: deps.actor, action: 'store.duplicates-folded', entityType: 'Collection', entityId: ev.collection,
    details: { feedbackId: ev.id, folded: dups.map((d) => ({ storeId: d.hit.id, documentId: d.owner.id })) },
  });
  return true;
}
