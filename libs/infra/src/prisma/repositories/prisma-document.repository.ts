import type { CollectionRow, DocumentRepository, DocumentRow, JsonObject, NewDocument } from '@forensics/core';
import type { Document, PrismaClient } from '../generated/client';
import { fromJson, isUuid, toJson } from './prisma-json';

export const toRow = (d: Document): DocumentRow => ({
  id: d.id, collection: d.collection, externalId: d.externalId, textHash: d.textHash, text: d.text, metadata: fromJson<JsonObject>(d.metadata), status: d.status, createdAt: d.createdAt,
});

const COLLECTION_COLUMNS = { name: true, embedder: true, dimension: true, vettedBefore: true } as const;

export class PrismaDocumentRepository implements DocumentRepository {
  constructor(private readonly db: PrismaClient) {}

  async getCollection(name: string): Promise<CollectionRow | null> {
    return this.db.collection.findUnique({ where: { name }, select: COLLECTION_COLUMNS });
  }

  async ensureCollection(c: CollectionRow): Promise<CollectionRow> {
    const stored = (await this.getCollection(c.name)) ?? (await this.caseVariant(c.name));
    if (stored) return stored;
    // ON CONFLICT DO NOTHING covers the unique index on lower("name") too: of two spellings created at once, one row stays.
    await this.db.collection.createMany({ data: [{ name: c.name, embedder: c.embedder, dimension: c.dimension, vettedBefore: c.vettedBefore ?? null }], skipDuplicates: true });
    return (await this.getCollection(c.name)) ?? (await this.caseVariant(c.name))!;
  }

  /** The collection whose name differs from `name` only in case (the oldest, should a database hold several). */
  private caseVariant(name: string): Promise<CollectionRow | null> {
    return this.db.collection.findFirst({ where: { name: { equals: name, mode: 'insensitive' } }, orderBy: { createdAt: 'asc' }, select: COLLECTION_COLUMNS });
  }

  async listCollections(): Promise<(CollectionRow & { documents: number })[]> {
    const [rows, counts] = await Promise.all([
      this.db.collection.findMany({ select: COLLECTION_COLUMNS, orderBy: { name: 'asc' } }),
      this.db.document.groupBy({ by: ['collection'], _count: { _all: true } }),
    ]);
    const n = new Map(counts.map((c) => [c.collection, c._count._all]));
    return rows.map((r) => ({ ...r, documents: n.get(r.name) ?? 0 }));
  }

  async setVettedBefore(name: string, before: Date | null): Promise<CollectionRow | null> {
    const r = await this.db.collection.updateMany({ where: { name }, data: { vettedBefore: before } });
    return r.count ? this.getCollection(name) : null;
  }

  async findByHashes(collection: string, hashes: readonly string[]): Promise<DocumentRow[]> {
    if (!hashes.length) return [];
    return (await this.db.document.findMany({ where: { collection, textHash: { in: [...hashes] } } })).map(toRow);
  }

  async insert(rows: readonly NewDocument[]): Promise<number> {
    if (!rows.length) return 0;
    const r = await this.db.document.createMany({
      data: rows.map((d) => ({ id: d.id, collection: d.collection, externalId: d.externalId, textHash: d.textHash, text: d.text, metadata: toJson(d.metadata) })),
      skipDuplicates: true,
    });
    return r.count;
  }

  async get(ids: readonly string[]): Promise<DocumentRow[]> {
    const valid = ids.filter(isUuid);
    if (!valid.length) return [];
    return (await this.db.document.findMany({ where: { id: { in: valid } } })).map(toRow);
  }

  async listPage(collection: string, opts: { after?: string | null; limit: number }): Promise<DocumentRow[]> {
    const after = opts.after && isUuid(opts.after) ? opts.after : undefined;
    const rows = await this.db.document.findMany({
      where: { collection, ...(after ? { id: { gt: after } } : {}) }, orderBy: { id: 'asc' }, take: Math.max(1, Math.floor(opts.limit)),
    });
    return rows.map(toRow);
  }

  async count(collection: string): Promise<number> {
    return this.db.document.count({ where: { collection } });
  }

  async countRegisteredBefore(collection: string, before: Date): Promise<number> {
    return this.db.document.count({ where: { collection, createdAt: { lt: before } } });
  }
}
