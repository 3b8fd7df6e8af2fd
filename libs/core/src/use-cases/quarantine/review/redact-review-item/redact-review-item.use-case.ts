import { randomUUID } from 'node:crypto';
import { ConflictError, echoInput, NotFoundError, PermanentError, ValidationError } from '../../../../domain/errors';
import { REDACTION_MARKER, RedactionError, redactSpans } from '../../../../domain/redaction';
import { parseRequest } from '../../../../domain/request-schema';
import { textHash } from '../../../../domain/text-identity';
import type { DomainEventPublisher } from '../../../../ports/domain-events.port';
import type { Embedder } from '../../../../ports/embedder.port';
import { REVIEW, type ClaimSpan, type DocumentRepository, type QuarantineRepository, type QuarantineRow, type ReviewRepository, type VerdictRepository } from '../../../../ports/repositories';
import { DOCUMENTS, DOMAIN_EVENTS, EMBEDDER, QUARANTINES, VECTOR_STORE, VERDICTS } from '../../../../ports/tokens';
import type { VectorStore } from '../../../../ports/vector-store.port';
import type { InjectMap } from '../../../../use-case';
import { ensureRedactedVersionInStore, syncRecordToStore } from '../../quarantine-text/store-sync';
import type { Decider } from '../review-decide/apply-decision';
import { ReviewRedactRequest } from '../review-items/review.schema';
import { itemSummary } from '../review-items/review-view';

export interface RedactReviewItemDeps {
  review: ReviewRepository; quarantines: QuarantineRepository; documents: DocumentRepository; verdicts: VerdictRepository;
  store: VectorStore; embedder: Embedder; events: DomainEventPublisher;
}

/**
 * Redact the claim instead of quarantining the text (issue 35; docs/decisions/0223-claim-span-redaction.md):
 * the item's text with its claim span(s) replaced by {@link REDACTION_MARKER} becomes a new version — a new
 * document with its own id and text hash, so the traceback and the verdict cache treat it as a new text —
 * embedded with the service's embedder and served in the original's place; the original keeps its text
 * in Postgres (QUARANTINED) until purged. Spans: the request's, else the claim spans stored with the judge's
 * verdict (400 when there are none). Order: the embedding first (no side effect), then Postgres in one
 * transaction (version, record state and redaction, original out of serving, `review.redacted` audit
 * entry), then the store (the version's vector written, the flags synced), then marked synced. A crash
 * between leaves the record unsynced with the original out of serving and the version not yet served; the
 * same request again completes it (an active redaction is not redone), and so does the next sync of
 * unsynced records (the reconcile audit: SyncQuarantinesUseCase). Reversible: restore (or approve,
 * or purge) of the item withdraws the version and decides the original as usual.
 */
export class RedactReviewItemUseCase {
  static readonly inject: InjectMap<RedactReviewItemDeps> = {
    review: REVIEW, quarantines: QUARANTINES, documents: DOCUMENTS, verdicts: VERDICTS, store: VECTOR_STORE, embedder: EMBEDDER, events: DOMAIN_EVENTS,
  };
  constructor(private readonly deps: RedactReviewItemDeps) {}

  async execute(id: string, body: unknown, who: Decider & { reasons?: readonly string[] }) {
    const b = parseRequest(ReviewRedactRequest, body ?? {});
    const { review, quarantines, documents, store, embedder } = this.deps;
    const rec = await quarantines.get(id);
    if (!rec) throw new NotFoundError(`review item ${echoInput(id)} does not exist`);
    if (rec.redaction?.active && rec.state === 'QUARANTINED') return this.complete(rec, false);
    if (rec.state === 'PURGED') throw new ConflictError(`quarantine record ${id} is PURGED: the text is gone`);
    const [doc] = await documents.get([rec.documentId]);
    if (!doc) throw new NotFoundError(`document ${rec.documentId} of review item ${id} does not exist`);
    const spans = b.spans ?? await this.storedSpans(rec);
    if (!spans.length) throw new ValidationError('no claim span is stored for this item (the judge gave none, or its quote was not found in the text): give spans');
    let redacted: ReturnType<typeof redactSpans>;
    try {
      redacted = redactSpans(doc.text, spans);
    } catch (e) {
      if (e instanceof RedactionError) throw new ValidationError(e.message);
      throw e;
    }
    const collection = await documents.getCollection(rec.collection);
    await embedder.init();
    if (collection && collection.embedder !== embedder.id) {
      throw new PermanentError(`collection '${rec.collection}' was embedded with '${collection.embedder}' but this service uses '${embedder.id}': the redacted text cannot be embedded like its neighbours`);
    }
    // Embedded before anything is written: a failure here leaves everything as it was.
    const [vector] = await embedder.embed([redacted.text]);
    const version = { id: randomUUID(), textHash: textHash(redacted.text), text: redacted.text, metadata: { ...(doc.metadata ?? {}), redactionOf: doc.id } };
    const res = await review.redact(id, {
      actor: who.actor, claimant: who.claimant ?? who.actor, override: !!who.override, note: b.note, reasons: who.reasons,
      version, redaction: { spans: redacted.spans, marker: REDACTION_MARKER, removedChars: redacted.removedChars, at: new Date().toISOString(), by: who.actor },
    });
    if (res.outcome === 'missing') throw new NotFoundError(`review item ${echoInput(id)} does not exist`);
    if (res.outcome === 'claimed') {
      throw new ConflictError(`item ${id} is claimed by ${res.claim.by} until ${res.claim.until.toISOString()}; only they (or an admin) can decide it now`, { claim: { by: res.claim.by, until: res.claim.until.toISOString() } });
    }
    if (res.outcome === 'conflict') throw new ConflictError(res.reason);
    const after = (await quarantines.get(id))!;
    return this.complete(after, res.outcome === 'changed', res.outcome === 'changed' ? vector : undefined);
  }

  /** The store side: the version's vector (payload of the original, plus `redactionOf`), then the flags; then the answer. */
  private async complete(rec: QuarantineRow, changed: boolean, embedded?: ArrayLike<number>) {
    const { review } = this.deps;
    const r = rec.redaction!;
    await ensureRedactedVersionInStore(this.deps, rec, embedded);
    if (!rec.storeSynced) await syncRecordToStore(this.deps, rec);
    if (changed) {
      await this.deps.events.publish({ type: 'review.decided', data: { quarantineId: rec.id, documentId: rec.documentId, feedbackId: rec.feedbackId, collection: rec.collection, decision: 'redact', state: rec.state, decidedBy: r.by, redactedDocumentId: r.documentId } });
    }
    const [item] = await review.summaries([rec.id]);
    return { item: itemSummary(item), redaction: { ...r }, changed };
  }

  /** The claim spans stored with the judge's verdict on this text for the record's report (or, failing that, in its evidence). */
  private async storedSpans(rec: QuarantineRow): Promise<ClaimSpan[]> {
    if (rec.feedbackId) {
      const v = (await this.deps.verdicts.list(rec.feedbackId)).find((x) => x.documentId === rec.documentId);
      if (v?.spans?.length) return v.spans;
    }
    return rec.evidence.judge.spans ?? [];
  }
}
