import { ConflictError, ValidationError } from '../../../domain/errors';
import { parseRequest } from '../../../domain/request-schema';
import { COLLECTION_NAME, documentIdFor, stripReservedMarkers, textHash } from '../../../domain/text-identity';
import type { Embedder } from '../../../ports/embedder.port';
import type { AuditLogRepository, DocumentRepository, NewDocument } from '../../../ports/repositories';
import { AUDIT_LOG, DOCUMENTS, EMBEDDER, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';
import { INGEST_TEXT_LIMIT, IngestRecordSchema } from './ingest-corpus.schema';
import { AdmissionCheck, type AdmissionHold, type WatchedAttack } from '../../audits/admission/admission-check';
import { QuarantineTextUseCase } from '../../quarantine/quarantine-text/quarantine-text.use-case';

export interface IngestRecord { id?: string; text: string; metadata?: Record<string, unknown> }

export interface IngestProgress { done: number; total: number; inserted: number; skipped: number }

export interface IngestResult {
  collection: string; received: number; inserted: number; skipped: number; ids: string[]; markersStripped: number;
  /** Already registered texts whose vector was missing from the store (an earlier run failed between the two writes), upserted now. */
  repaired: number;
  /** Admission check (issue 12): new texts judged against watched attacks, and those held for review (never served). */
  admission: { watched: number; judged: number; held: number; heldIds: string[] };
}

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
 * (re-ingesting is a no-op), batched embedding with progress, Postgres registration, then vector
 * store upsert. Postgres first, store second: a failure or crash in between leaves registered texts
 * with no vector (never served, never retrieved), and the next run of the same texts finds them
 * missing from the store (`store.fetch` over the batch's ids) and upserts them — never a vector
 * with no document (a "ghost": served by the RAG but impossible to trace or quarantine).
 */
export interface IngestCorpusDeps { documents: DocumentRepository; audit: AuditLogRepository; store: VectorStore; embedder: Embedder; admission: AdmissionCheck; quarantineText: QuarantineTextUseCase }

/** Texts embedded and written per batch. */
const INGEST_BATCH = 32;

export class IngestCorpusUseCase {
  static readonly inject: InjectMap<IngestCorpusDeps> = { documents: DOCUMENTS, audit: AUDIT_LOG, store: VECTOR_STORE, embedder: EMBEDDER, admission: AdmissionCheck, quarantineText: QuarantineTextUseCase };
  constructor(private readonly deps: IngestCorpusDeps) {}

  async execute(cmd: { collection: string; records: readonly IngestRecord[]; onProgress?: (p: IngestProgress) => void }): Promise<IngestResult> {
    const { documents, store, embedder } = this.deps;
    if (!COLLECTION_NAME.test(cmd.collection)) throw new ValidationError('collection must match [A-Za-z0-9_-]{1,64}');
    await embedder.init();
    const coll = await documents.ensureCollection({ name: cmd.collection, embedder: embedder.id, dimension: embedder.dimension });
    if (coll.name !== cmd.collection) {
      // Issue 56, 7c: one spelling per collection (each is a directory of the vector store; "kb" and "KB" are one on a
      // case-insensitive filesystem). Refused rather than mapped: every later call names the collection exactly.
      throw new ConflictError(`collection '${cmd.collection}' differs only in case from the existing collection '${coll.name}': collection names are compared without case; use '${coll.name}'`, { collection: coll.name });
    }
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
    const registered = new Map((await documents.findByHashes(cmd.collection, unique.map((u) => u.hash))).map((d) => [d.textHash, d]));
    const fresh = unique.filter((u) => !registered.has(u.hash));
    // A purged text (issue 11) is never written back: its vector stays deleted and its text redacted;
    // an approved (QUARANTINED) one is repaired below with its quarantine flag, so it stays out of serving.
    const known = unique.filter((u) => registered.has(u.hash) && registered.get(u.hash)!.status !== 'PURGED').map((u) => ({ ...u, id: registered.get(u.hash)!.id }));
    const skipped = cmd.records.length - fresh.length;
    const batch = INGEST_BATCH;
    let inserted = 0;
    let repaired = 0;
    cmd.onProgress?.({ done: 0, total: fresh.length, inserted, skipped });
    // Texts registered by an earlier run whose vector never reached the store (a failure between
    // the two writes): upserted now; their quarantine flag follows the document's status.
    for (let i = 0; i < known.length; i += batch) {
      const part = known.slice(i, i + batch);
      const stored = new Set((await store.fetch(cmd.collection, part.map((p) => p.id))).map((r) => r.id));
      const missing = part.filter((p) => !stored.has(p.id));
      if (!missing.length) continue;
      const vecs = await embedder.embed(missing.map((p) => p.text));
      await store.upsert(cmd.collection, missing.map((p, j) => ({ id: p.id, vector: vecs[j], text: p.text, payload: { externalId: p.externalId, metadata: p.metadata } })));
      const flagged = missing.filter((p) => registered.get(p.hash)!.status !== 'ACTIVE').map((p) => p.id);
      if (flagged.length) await store.setQuarantined(cmd.collection, flagged, true);
      repaired += missing.length;
    }
    let watch: WatchedAttack[] | null = null;
    const admission = { watched: 0, judged: 0, held: 0, heldIds: [] as string[] };
    for (let i = 0; i < fresh.length; i += batch) {
      const part = fresh.slice(i, i + batch);
      const vecs = await embedder.embed(part.map((p) => p.text));
      inserted += await documents.insert(part.map((p): NewDocument => ({ id: p.id, collection: cmd.collection, externalId: p.externalId, textHash: p.hash, text: p.text, metadata: p.metadata })));
      // Admission check: new texts that would rank for a watched attack's query and induce its wrong
      // answer are sent to review withheld BEFORE their vector is written, and written already flagged.
      watch ??= await this.deps.admission.watchlist(cmd.collection);
      admission.watched = watch.length;
      const held = new Set<number>();
      if (watch.length > 0) {
        const { holds, judged } = await this.deps.admission.check(watch, part.map((p) => p.text), vecs);
        admission.judged += judged;
        for (const h of holds) {
          const p = part[h.index]!;
          await this.deps.quarantineText.execute({
            documentId: p.id, feedbackId: h.eventId, collection: cmd.collection, state: 'NEEDS_REVIEW', servedDuringReview: false, policy: 'admission',
            reason: admissionReason(h),
            evidence: {
              policy: { name: 'admission', decision: 'NEEDS_REVIEW', withhold: true, reason: 'admission check at ingestion: held before it was ever served', inputs: { similarity: h.similarity, threshold: h.threshold, eventId: h.eventId, route: h.route, seedSim: h.seedSim } },
              judge: { kind: this.deps.admission.judgeKind, model: this.deps.admission.judgeModel, promptVersion: 'admission', label: h.label, reply: h.reply, signals: null },
              retrieval: null, retrieverEvidence: null,
            },
            actor: 'admission-check',
          });
          held.add(h.index);
          admission.heldIds.push(p.id);
        }
        admission.held += held.size;
      }
      await store.upsert(cmd.collection, part.map((p, j) => ({ id: p.id, vector: vecs[j], text: p.text, payload: { externalId: p.externalId, metadata: p.metadata }, ...(held.has(j) ? { quarantined: true } : {}) })));
      cmd.onProgress?.({ done: Math.min(i + batch, fresh.length), total: fresh.length, inserted, skipped });
    }
    if (inserted || repaired) await this.deps.audit.append({ actor: 'ingest', action: 'corpus.ingested', entityType: 'Collection', entityId: cmd.collection, details: { inserted, skipped, markersStripped, ...(repaired ? { repaired } : {}), ...(admission.held ? { admissionHeld: admission.held } : {}) } });
    return { collection: cmd.collection, received: cmd.records.length, inserted, skipped, ids, markersStripped, repaired, admission };
  }
}

/** The review item's reason for a text the admission check held, by the route that brought it to the judge. */
function admissionReason(h: AdmissionHold): string {
  const answer = `'${h.wrongAnswer.slice(0, 80)}'`;
  if (h.route !== 'paraphrase' && h.label !== 'YES') return `admission check: would rank high for an attacked question and the judge's score on inducing its wrong answer ${answer} is inside its confidence band (label ${h.label}): a reviewer decides`;
  if (h.route === 'rank') return `admission check: would rank in the top results for an attacked question and induce its wrong answer ${answer}`;
  if (h.route === 'answer') return `admission check: would rank high for an attacked question, states its wrong answer ${answer} and was judged to induce it`;
  return h.label === 'YES'
    ? `admission check: a paraphrase of the texts taken out for an attacked question, judged to induce its wrong answer ${answer}`
    : `admission check: a paraphrase of the texts taken out for an attacked question, stating its wrong answer ${answer} (the judge said ${h.label}: a reviewer decides)`;
}
