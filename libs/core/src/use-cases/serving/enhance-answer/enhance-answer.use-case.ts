import { decideEnhancement, type EnhancementAuthority, type EnhancementDecision } from '@forensics/algorithms';
import { ConflictError, echoInput, NotFoundError, ValidationError } from '../../../domain/errors';
import { inCollectionScope } from '../../../domain/collection-scope';
import { documentIdFor, stripReservedMarkers, textHash } from '../../../domain/text-identity';
import type { DomainEventPublisher } from '../../../ports/domain-events.port';
import type { Embedder } from '../../../ports/embedder.port';
import type { Generator } from '../../../ports/generator.port';
import type { EnhancementRepository, EnhancementRow, FeedbackEventRepository, FeedbackRow, ReporterActivityRepository } from '../../../ports/repositories';
import { REPORTER_ACTIVITY } from '../../../ports/repositories/reporter-activity.port';
import { CORE_SETTINGS, DOMAIN_EVENTS, EMBEDDER, ENHANCEMENTS, FEEDBACK_EVENTS, GENERATOR, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { CoreSettings } from '../../../settings';
import type { InjectMap } from '../../../use-case';
import { AccessDeniedError } from '../../identity/manage-keys/identity';
import { BTE_PROXY_KIND } from '../serving-view/serving-view';

export const CORRECT_ANSWER_LIMIT = 500;
/** Other reports of the same (query, wrong answer) read for agreement on the correct answer. */
const SAME_REPORTS_READ = 100;

/** The only place that creates `[LATEST]` markers (RAGForensics arXiv 2504.21668, App. 8.3). */
export function wrapLatest(text: string): string {
  return `[LATEST] ${stripReservedMarkers(text).trim()} [/LATEST]`;
}

export interface EnhanceAnswerCommand {
  feedbackId: string;
  actor: string;
  correctAnswer?: string;
  /**
   * Who writes it (the enhancement policy, `decideEnhancement`): `reviewer` = live at once; `report` = the report's own
   * correct answer, decided by its trust, corroboration and the consensus check; `suggestion` = a service key's later
   * correction, only proposed.
   */
  authority: EnhancementAuthority;
  /** For a `suggestion`: the calling key as reports record it (`key:<id>`); only events that key reported may be suggested for. */
  suggestedBy?: string;
  /** The caller's collections (a key limited to collections); absent = every collection. */
  collections?: readonly string[] | null;
}
export interface EnhanceAnswerResult { enhancement: EnhancementRow; created: boolean; decision: EnhancementDecision }
export interface EnhanceAnswerDeps {
  feedback: FeedbackEventRepository; enhancements: EnhancementRepository; store: VectorStore; embedder: Embedder; generator: Generator;
  events: DomainEventPublisher; activity: ReporterActivityRepository; settings: CoreSettings;
}

/**
 * Benign-text enhancement (BTE, RAGForensics arXiv 2504.21668, App. 8.3): with the correct answer c
 * known, generate a benign text for (q, c) with the `bte-v1` prompt (offline: a labelled
 * declarative template), wrap it `[LATEST] … [/LATEST]`, and store a retrieval proxy whose vector is
 * the embedding of q and whose payload marks it as a proxy; the answer path replaces it by the
 * benign text.
 *
 * A correct answer writes what the RAG serves, so it is decided under the same trust as a removal
 * (`decideEnhancement`): a live enhancement (ACTIVE) gets its proxy; a proposal (PROPOSED) is a row
 * only, with no proxy in the store, until a reviewer approves it (ApproveEnhancementUseCase).
 *
 * Order: vector store first, then the enhancement row; when the row write fails the proxy vector is
 * deleted again before the error propagates. Why not the row first: an ACTIVE row is what the answer
 * path and `GET /v1/enhancements` trust, and an existing ACTIVE row short-circuits a retry, so a row
 * whose vector never arrived would be an enhancement that silently never serves. A proxy with no
 * row is never served: `substituteProxies` drops proxies that have no ACTIVE enhancement, so the
 * only trace a crash between the two writes (or a failed rollback) can leave is an unserved proxy,
 * which the retry overwrites (same proxy id, derived from the feedback id and answer) and completes.
 */
export class EnhanceAnswerUseCase {
  static readonly inject: InjectMap<EnhanceAnswerDeps> = {
    feedback: FEEDBACK_EVENTS, enhancements: ENHANCEMENTS, store: VECTOR_STORE, embedder: EMBEDDER, generator: GENERATOR, events: DOMAIN_EVENTS,
    activity: REPORTER_ACTIVITY, settings: CORE_SETTINGS,
  };
  constructor(private readonly deps: EnhanceAnswerDeps) {}

  async execute(cmd: EnhanceAnswerCommand): Promise<EnhanceAnswerResult> {
    const { feedback, enhancements, generator } = this.deps;
    const ev = await feedback.get(cmd.feedbackId);
    // A key limited to collections (issue 56, item 7b): an event of another collection is one that does not exist.
    if (!ev || !inCollectionScope(cmd.collections, ev.collection)) throw new NotFoundError(`feedback event ${echoInput(cmd.feedbackId)} does not exist`);
    if (cmd.authority === 'suggestion' && !reportedBy(ev, cmd.suggestedBy)) {
      throw new AccessDeniedError(`feedback event ${ev.id} was not reported with this key: a service key may suggest a correct answer only for the events it reported`);
    }
    const open = (await enhancements.list({ feedbackId: ev.id })).filter((e) => e.state !== 'DELETED');
    const correct = await this.correctAnswerOf(ev, cmd.correctAnswer, open);
    const decision = await this.decide(ev, correct, cmd.authority);
    const active = open.find((e) => e.state === 'ACTIVE');
    if (active) return { enhancement: active, created: false, decision };
    const proposed = open.find((e) => e.state === 'PROPOSED');
    if (proposed) {
      if (decision.state !== 'ACTIVE') return { enhancement: proposed, created: false, decision };
      return { enhancement: await publishApproved(this.deps, proposed, cmd.actor), created: false, decision };
    }

    // What is served never carries direction controls: an override in a reporter's answer would reverse the text
    // every later asker reads ("Berlin \u202elive" shown as "Berlin evil").
    const benign = await generator.benignText({ query: ev.query, correctAnswer: withoutDirectionControls(correct) });
    const wrapped = wrapLatest(benign.text);
    const proxyId = documentIdFor(ev.collection, textHash(`bte-proxy\u0000${ev.id}\u0000${correct}`));
    const row = {
      collection: ev.collection, feedbackId: ev.id, query: ev.query, correctAnswer: correct, benignText: wrapped, proxyId, state: decision.state, reason: decision.reason,
      generatorKind: generator.kind, generatorModel: generator.model, promptVersion: benign.promptVersion, createdBy: cmd.actor,
    };
    if (decision.state === 'ACTIVE') await upsertProxy(this.deps, row);
    const enhancement = await enhancements.create(row).catch(async (e) => {
      // A concurrent run created it with the same proxy id: return that one.
      const found = await enhancements.list({ feedbackId: ev.id }).then((rows) => rows.find((x) => x.proxyId === proxyId && x.state !== 'DELETED'), () => undefined);
      if (found) return found;
      // No row: take the proxy out of the store again (best effort — an unserved proxy is harmless).
      if (decision.state === 'ACTIVE') await this.deps.store.delete(ev.collection, [proxyId]).catch(() => {});
      throw e;
    });
    await this.deps.events.publish({
      type: enhancement.state === 'ACTIVE' ? 'enhancement.created' : 'enhancement.proposed',
      data: { enhancementId: enhancement.id, feedbackId: ev.id, collection: ev.collection, proxyId, generator: generator.kind, state: enhancement.state },
    });
    return { enhancement, created: true, decision };
  }

  /** The event's correct answer, after setting `given` on it (validated; another answer while `open` holds an enhancement is a conflict). */
  private async correctAnswerOf(ev: FeedbackRow, given: string | undefined, open: readonly EnhancementRow[]): Promise<string> {
    if (given === undefined) {
      if (!ev.correctAnswer) throw new ValidationError('no correct answer is known for this feedback: set one first');
      return ev.correctAnswer;
    }
    const c = stripReservedMarkers(given).trim();
    if (!c) throw new ValidationError('correctAnswer must not be empty');
    if (c.length > CORRECT_ANSWER_LIMIT) throw new ValidationError(`correctAnswer is longer than ${CORRECT_ANSWER_LIMIT} characters`);
    if (ev.correctAnswer && ev.correctAnswer !== c) {
      if (open.length) throw new ConflictError(`this feedback already has an ${open[0].state === 'ACTIVE' ? 'active' : 'proposed'} enhancement for another correct answer; delete it first`);
    }
    if (ev.correctAnswer !== c) await this.deps.feedback.update(ev.id, { correctAnswer: c });
    return c;
  }

  private async decide(ev: FeedbackRow, correct: string, authority: EnhancementAuthority): Promise<EnhancementDecision> {
    const same = authority === 'report' && ev.reportKey ? await this.deps.activity.sameReport(ev.collection, ev.reportKey, SAME_REPORTS_READ) : [];
    return decideEnhancement({
      authority, trust: ev.trust ?? 'anonymous', source: ev.reporterSource ?? null, correctAnswer: correct,
      sameReports: same.filter((r) => r.eventId !== ev.id), suspectedFalseFlag: ev.trace?.suspectedFalseFlag === true,
    }, this.deps.settings.trust);
  }
}

/** The text without Unicode direction embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069). */
export function withoutDirectionControls(text: string): string {
  return text.replace(/[\u202a-\u202e\u2066-\u2069]/gu, '');
}

/** The event was reported with the key `source` names (`key:<id>`, optionally `/<reporter>` after it). */
function reportedBy(ev: FeedbackRow, source: string | undefined): boolean {
  if (!source || !ev.reporterSource) return false;
  return ev.reporterSource === source || ev.reporterSource.startsWith(`${source}/`);
}

type ProxyDeps = Pick<EnhanceAnswerDeps, 'store' | 'embedder'>;

/** The retrieval proxy of an enhancement: the query's embedding, marked as ours. */
export async function upsertProxy(deps: ProxyDeps, e: Pick<EnhancementRow, 'collection' | 'feedbackId' | 'query' | 'benignText' | 'proxyId'>): Promise<void> {
  await deps.embedder.init();
  const [qv] = await deps.embedder.embed([e.query]);
  await deps.store.upsert(e.collection, [{ id: e.proxyId, vector: qv, text: e.benignText, payload: { kind: BTE_PROXY_KIND, feedbackId: e.feedbackId, query: e.query } }]);
}

/** PROPOSED → ACTIVE: the proxy first (a proxy with no ACTIVE row is never served), then the row, then the event. */
export async function publishApproved(deps: ProxyDeps & Pick<EnhanceAnswerDeps, 'enhancements' | 'events'>, e: EnhancementRow, actor: string): Promise<EnhancementRow> {
  if (e.state === 'DELETED') throw new ConflictError(`enhancement ${e.id} was deleted; it cannot be approved`);
  if (e.state === 'ACTIVE') return e;
  await upsertProxy(deps, e);
  const row = await deps.enhancements.approve(e.id, actor);
  await deps.events.publish({
    type: 'enhancement.created',
    data: { enhancementId: row.id, feedbackId: row.feedbackId, collection: row.collection, proxyId: row.proxyId, generator: row.generatorKind, state: row.state, approvedBy: actor },
  });
  return row;
}
