import type { CollectionRow, DocumentRepository, DocumentRow, NewDocument } from '../ports/repositories';
import { ConstraintViolation, copy, InMemoryRepository, isUuid, jsonColumn } from './in-memory-state';

/** Collections and documents: unique per id and per (collection, textHash); duplicates are skipped. */
export class InMemoryDocumentRepository extends InMemoryRepository implements DocumentRepository {
  async getCollection(name: string): Promise<CollectionRow | null> {
    const c = this.s.collections.get(name);
    return c ? copy(c) : null;
  }

  async ensureCollection(c: CollectionRow): Promise<CollectionRow> {
    const variant = [...this.s.collections.values()].find((x) => x.name.toLowerCase() === c.name.toLowerCase());
    if (!this.s.collections.has(c.name) && variant) return copy(variant);
    if (!this.s.collections.has(c.name)) this.s.collections.set(c.name, { name: c.name, embedder: c.embedder, dimension: c.dimension, vettedBefore: c.vettedBefore ?? null });
    return copy(this.s.collections.get(c.name)!);
  }

  async listCollections(): Promise<(CollectionRow & { documents: number })[]> {
    const docs = [...this.s.documents.values()];
    return [...this.s.collections.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((c) => ({ ...copy(c), documents: docs.filter((d) => d.collection === c.name).length }));
  }

  async setVettedBefore(name: string, before: Date | null): Promise<CollectionRow | null> {
    const c = this.s.collections.get(name);
    if (!c) return null;
    c.vettedBefore = before ? new Date(before) : null;
    return copy(c);
  }

  async findByHashes(collection: string, hashes: readonly string[]): Promise<DocumentRow[]> {
    const want = new Set(hashes);
    return [...this.s.documents.values()].filter((d) => d.collection === collection && want.has(d.textHash)).map(copy);
  }

  async insert(rows: readonly NewDocument[]): Promise<number> {
    const bad = rows.find((r) => !isUuid(r.id));
    if (bad) throw new ConstraintViolation(`document id ${bad.id} is not a uuid`);
    let n = 0;
    for (const r of rows) {
      if (this.s.documents.has(r.id) || [...this.s.documents.values()].some((d) => d.collection === r.collection && d.textHash === r.textHash)) continue;
      this.s.documents.set(r.id, { id: r.id, collection: r.collection, externalId: r.externalId, textHash: r.textHash, text: r.text, metadata: jsonColumn(r.metadata), status: 'ACTIVE', createdAt: new Date() });
      n++;
    }
    return n;
  }

  async get(ids: readonly string[]): Promise<DocumentRow[]> {
    return [...new Set(ids)].flatMap((id) => (this.s.documents.has(id) ? [copy(this.s.documents.get(id)!)] : []));
  }

  async listPage(collection: string, opts: { after?: string | null; limit: number }): Promise<DocumentRow[]> {
    return [...this.s.documents.values()].filter((d) => d.collection === collection && (!opts.after || d.id > opts.after))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, Math.max(1, Math.floor(opts.limit))).map(copy);
  }

  async count(collection: string): Promise<number> {
    return [...this.s.documents.values()].filter((d) => d.collection === collection).length;
  }

  async countRegisteredBefore(collection: string, before: Date): Promise<number> {
    return [...this.s.documents.values()].filter((d) => d.collection === collection && d.createdAt.getTime() < new Date(before).getTime()).length;
  }
}
