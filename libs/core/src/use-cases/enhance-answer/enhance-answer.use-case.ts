import { ConflictError, NotFoundError, ValidationError } from '../../domain/errors';
import { documentIdFor, stripReservedMarkers, textHash } from '../../domain/text-identity';
import type { Embedder } from '../../ports/embedder.port';
import type { EnhancementRow, ForensicsRepository } from '../../ports/forensics-repository.port';
import type { Generator } from '../../ports/generator.port';
import type { VectorStore } from '../../ports/vector-store.port';
import { BTE_PROXY_KIND } from '../serving/serving-view';

export const CORRECT_ANSWER_LIMIT = 500;

/** The only place that creates `[LATEST]` markers (ragforensics.md App. 8.3). */
export function wrapLatest(text: string): string {
  return `[LATEST] ${stripReservedMarkers(text).trim()} [/LATEST]`;
}

/**
 * Benign text enhancement (BTE, ragforensics.md App. 8.3): with the correct answer c known, generate
 * a benign text for (q, c) with the `bte-v1` prompt (offline: a labelled declarative template), wrap
 * it `[LATEST] … [/LATEST]`, and store a retrieval proxy whose vector is the embedding of q and
 * whose payload marks it as a proxy; the answer path replaces it by the benign text.
 *
 * Order: vector store first, then Postgres (+ audit). A crash in between leaves a proxy with no
 * enhancement row, which the answer path ignores; the retry reuses the same proxy id (derived
 * from the feedback id), so nothing is duplicated.
 */
export class EnhanceAnswerUseCase {
  constructor(private readonly deps: { repo: ForensicsRepository; store: VectorStore; embedder: Embedder; generator: Generator }) {}

  async execute(cmd: { feedbackId: string; actor: string; correctAnswer?: string }): Promise<{ enhancement: EnhancementRow; created: boolean }> {
    const { repo, store, embedder, generator } = this.deps;
    const ev = await repo.getFeedback(cmd.feedbackId);
    if (!ev) throw new NotFoundError(`feedback event ${cmd.feedbackId} does not exist`);
    let correct = ev.correctAnswer;
    if (cmd.correctAnswer !== undefined) {
      const c = stripReservedMarkers(cmd.correctAnswer).trim();
      if (!c) throw new ValidationError('correctAnswer must not be empty');
      if (c.length > CORRECT_ANSWER_LIMIT) throw new ValidationError(`correctAnswer is longer than ${CORRECT_ANSWER_LIMIT} characters`);
      if (ev.correctAnswer && ev.correctAnswer !== c) {
        const active = await repo.listEnhancements({ feedbackId: ev.id, state: 'ACTIVE' });
        if (active.length) throw new ConflictError('this feedback already has an active enhancement for another correct answer; delete it first');
      }
      if (ev.correctAnswer !== c) await repo.updateFeedback(ev.id, { correctAnswer: c });
      correct = c;
    }
    if (!correct) throw new ValidationError('no correct answer is known for this feedback: set one first');
    const existing = (await repo.listEnhancements({ feedbackId: ev.id, state: 'ACTIVE' }))[0];
    if (existing) return { enhancement: existing, created: false };

    const benign = await generator.benignText({ query: ev.query, correctAnswer: correct });
    const wrapped = wrapLatest(benign.text);
    await embedder.init();
    const [qv] = await embedder.embed([ev.query]);
    const proxyId = documentIdFor(ev.collection, textHash(`bte-proxy\u0000${ev.id}\u0000${correct}`));
    await store.upsert(ev.collection, [{ id: proxyId, vector: qv, text: wrapped, payload: { kind: BTE_PROXY_KIND, feedbackId: ev.id, query: ev.query } }]);
    const enhancement = await repo.createEnhancement({
      collection: ev.collection, feedbackId: ev.id, query: ev.query, correctAnswer: correct, benignText: wrapped, proxyId,
      generatorKind: generator.kind, generatorModel: generator.model, promptVersion: benign.promptVersion, createdBy: cmd.actor,
    }).catch(async (e) => {
      // A concurrent run created it with the same proxy id: return that one.
      const row = (await repo.listEnhancements({ feedbackId: ev.id, state: 'ACTIVE' })).find((x) => x.proxyId === proxyId);
      if (row) return row;
      throw e;
    });
    return { enhancement, created: true };
  }
}

/** Removes an enhancement: the proxy leaves the vector store; the row stays (state DELETED) for the audit trail. */
export class DeleteEnhancementUseCase {
  constructor(private readonly deps: { repo: ForensicsRepository; store: VectorStore }) {}

  async execute(cmd: { enhancementId: string; actor: string }): Promise<EnhancementRow> {
    const e = await this.deps.repo.getEnhancement(cmd.enhancementId);
    if (!e) throw new NotFoundError(`enhancement ${cmd.enhancementId} does not exist`);
    const row = e.state === 'DELETED' ? e : await this.deps.repo.markEnhancementDeleted(e.id, cmd.actor);
    await this.deps.store.delete(e.collection, [e.proxyId]);
    return row;
  }
}
