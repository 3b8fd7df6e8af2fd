import type { DomainEventPublisher } from './domain-events.port';
import type { Embedder } from './embedder.port';
import type { Generator } from './generator.port';
import type { GradientProbe } from './gradient-probe.port';
import type { Judge } from './judge.port';
import type { ApiKeyRepository, SessionRepository, UserRepository } from './repositories';
import type {
  AnswerRepository, AuditLogRepository, DatabaseHealth, DocumentRepository, EnhancementRepository, FeedbackEventRepository, QuarantineRepository, VerdictRepository,
} from './repositories';
import type { TracebackQueue } from './traceback-queue.port';
import type { VectorStore } from './vector-store.port';
import type { Clock, Failpoints, NeighbourLists } from './runtime.port';
import type { CoreSettings, IdentitySettings } from '../settings';
import { token } from './token';

/** Injection tokens of the ports (a token is a typed symbol: see ./token.ts). */
export type { Token } from './token';

export const DOCUMENTS = token<DocumentRepository>('DocumentRepository');
export const FEEDBACK_EVENTS = token<FeedbackEventRepository>('FeedbackEventRepository');
export const VERDICTS = token<VerdictRepository>('VerdictRepository');
export const QUARANTINES = token<QuarantineRepository>('QuarantineRepository');
export const ANSWERS = token<AnswerRepository>('AnswerRepository');
export const ENHANCEMENTS = token<EnhancementRepository>('EnhancementRepository');
export const AUDIT_LOG = token<AuditLogRepository>('AuditLogRepository');
export const DATABASE_HEALTH = token<DatabaseHealth>('DatabaseHealth');
export const USERS = token<UserRepository>('UserRepository');
export const API_KEYS = token<ApiKeyRepository>('ApiKeyRepository');
export const SESSIONS = token<SessionRepository>('SessionRepository');
/** Key pepper, session lifetime (issue 11). */
export const IDENTITY_SETTINGS = token<IdentitySettings>('IdentitySettings');

export const VECTOR_STORE = token<VectorStore>('VectorStore');
export const EMBEDDER = token<Embedder>('Embedder');
export const JUDGE = token<Judge>('Judge');
export const GENERATOR = token<Generator>('Generator');
export const GRADIENT_PROBE = token<GradientProbeProvision>('GradientProbe');
export const TRACEBACK_QUEUE = token<TracebackQueue>('TracebackQueue');
export const NEIGHBOUR_LISTS = token<NeighbourLists>('NeighbourLists');
export const CLOCK = token<Clock>('Clock');
export const FAILPOINTS = token<Failpoints>('Failpoints');
export const CORE_SETTINGS = token<CoreSettings>('CoreSettings');
export const DOMAIN_EVENTS = token<DomainEventPublisher>('DomainEventPublisher');

/** ProGRank's probe, or why there is none (recorded on every evidence record that skips it). */
export type GradientProbeProvision = { probe: GradientProbe; reason?: undefined } | { probe: null; reason: string };
