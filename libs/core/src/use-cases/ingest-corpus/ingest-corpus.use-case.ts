import { ValidationError } from '../../domain/errors';
import { parseRequest } from '../../domain/request-schema';
import { COLLECTION_NAME, documentIdFor, stripReservedMarkers, textHash } from '../../domain/text-identity';
import type { Embedder } from '../../ports/embedder.port';
import type { AuditLogRepository, DocumentRepository, NewDocument } from '../../ports/repositories';
import { AUDIT_LOG, DOCUMENTS, EMBEDDER, VECTOR_STORE } from '../../ports/tokens';
import type { VectorStore } from '../../ports/vector-store.port';
import type { InjectMap } from '../../use-case';
import { INGEST_TEXT_LIMIT, IngestRecordSchema } from './ingest-corpus.schema';

export interface IngestRecord { id?: string; text: string; metadata?: Record<string, unknown> }

export interface IngestProgress { done: number; total: number; inserted: number; skipped: number }

export interface IngestResult { collection: string; received: number; inserted: number; skipped: number; ids: string[]; markersStripped: number }

export { INGEST_TEXT_LIMIT };

/** Validates one JSONL / JSON record `{id?, text, metadata?}`; `where` names it in every problem. */
export function parseIngestRecord(raw: unknown, where: string): IngestRecord {
  try {
    return parseRequest(IngestRecordSchema, raw);
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    const problems = e.details.map((p) => `${where}: ${p}`);
    throw new ValidationError(problems.join('; '), problems);
  }
}

/**
 * Imports texts into a collection: reserved `[LATEST]` markers stripped, identity by text hash
 * (re-ingesting is a no-op), batched embedding with progress, vector store upsert, then Postgres
 * registration. Store first, Postgres second: a crash in between leaves texts unregistered, which
 * the next run embeds and upserts again (same ids) — never a registered text missing from the store.
 */
export interface IngestCorpusDeps { documents: DocumentRepository; audit: AuditLogRepository; store: VectorStore; embedder: Embedder }

/** Texts embedded and written per batch. */
const INGEST_BATCH = 32;

export class IngestCorpusUseCase {
  static readonly inject: InjectMap<IngestCorpusDeps> = { documents: DOCUMENTS, audit: AUDIT_LOG, store: VECTOR_STORE, embedder: EMBEDDER };
  constructor(private readonly deps: IngestCorpusDeps) {}

  async execute(cmd: { collection: string; records: readonly IngestRecord[]; onProgress?: (p: IngestProgress) => void }): Promise<IngestResult> {
    const { documents, store, embedder } = this.deps;
    if (!COLLECTION_NAME.test(cmd.collection)) throw new ValidationError('collection must match [A-Za-z0-9_-]{1,64}');
    await embedder.init();
    const coll = await documents.ensureCollection({ name: cmd.collection, embedder: embedder.id, dimension: embedder.dimension });
    if (coll.embedder !== embedder.id || coll.dimension !== embedder.dimension) {
      throw new ValidationError(`collection '${cmd.collection}' holds vectors from '${coll.embedder}' (${coll.dimension}-d); this process embeds with '${embedder.id}' (${embedder.dimension}-d)`);
    }
    await store.ensureCollection(cmd.collection, embedder.dimension);

    let markersStripped = 0;
    const seen = new Map<string, { id: string; hash: string; text: string; externalId: string | null; metadata: Record<string, unknown> | null }>();
    const ids: string[] = [];
    for (const r of cmd.records) {
      const text = stripReservedMarkers(r.text);
      if (text !== r.text) markersStripped++;
      const hash = textHash(text);
      const id = documentIdFor(cmd.collection, hash);
      ids.push(id);
      if (!seen.has(hash)) seen.set(hash, { id, hash, text, externalId: r.id ?? null, metadata: r.metadata ?? null });
    }
    const unique = [...seen.values()];
    const existing = new Set((await documents.findByHashes(cmd.collection, unique.map((u) => u.hash))).map((d) => d.textHash));
    const todo = unique.filter((u) => !existing.has(u.hash));
    const skipped = cmd.records.length - todo.length;
    const batch = INGEST_BATCH;
    let inserted = 0;
    cmd.onProgress?.({ done: 0, total: todo.length, inserted, skipped });
    for (let i = 0; i < todo.length; i += batch) {
      const part = todo.slice(i, i + batch);
      const vecs = await embedder.embed(part.map((p) => p.text));
      await store.upsert(cmd.collection, part.map((p, j) => ({ id: p.id, vector: vecs[j], text: p.text, payload: { externalId: p.externalId, metadata: p.metadata } })));
      inserted += await documents.insert(part.map((p): NewDocument => ({ id: p.id, collection: cmd.collection, externalId: p.externalId, textHash: p.hash, text: p.text, metadata: p.metadata })));
      cmd.onProgress?.({ done: Math.min(i + batch, todo.length), total: todo.length, inserted, skipped });
    }
    if (inserted) await this.deps.audit.append({ actor: 'ingest', action: 'corpus.ingested', entityType: 'Collection', entityId: cmd.collection, details: { inserted, skipped, markersStripped } });
    return { collection: cmd.collection, received: cmd.records.length, inserted, skipped, ids, markersStripped };
  }
}
