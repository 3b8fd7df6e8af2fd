import type { ApiKeyRow, SessionRow, UserRow } from '../ports/repositories';
import type { AnswerRow, AuditEntry, AuditRecord, CollectionRow, DocumentRow, EnhancementRow, FeedbackRow, QuarantineRow, VerdictRow } from '../ports/repositories';

/**
 * The one state all in-memory repositories of a `createInMemoryRepositories()` share, as the
 * Prisma repositories share one database: a quarantine changes the document's status and appends
 * to the audit log, like the Prisma transaction does. Tests may read it; writes go through the repositories.
 */
export interface InMemoryState {
  collections: Map<string, CollectionRow>;
  documents: Map<string, DocumentRow>;
  feedback: Map<string, FeedbackRow>;
  verdicts: VerdictRow[];
  quarantines: Map<string, QuarantineRow>;
  answers: Map<string, AnswerRow>;
  enhancements: Map<string, EnhancementRow>;
  /** In append order (Postgres: by the serial id). */
  audit: AuditRecord[];
  users: Map<string, UserRow>;
  apiKeys: Map<string, ApiKeyRow>;
  sessions: Map<string, SessionRow>;
}

export function emptyState(): InMemoryState {
  return { collections: new Map(), documents: new Map(), feedback: new Map(), verdicts: [], quarantines: new Map(), answers: new Map(), enhancements: new Map(), audit: [], users: new Map(), apiKeys: new Map(), sessions: new Map() };
}

/** Deep copy of a row (plain data plus Dates), made in the caller's realm (structuredClone is not, under jest). */
export function copy<T>(v: T): T {
  if (v instanceof Date) return new Date(v.getTime()) as T;
  if (Array.isArray(v)) return v.map(copy) as T;
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copy(x)])) as T;
  return v;
}

/**
 * What a JSON column gives back for a value written to it: undefined members dropped, Dates as
 * ISO strings, NaN/Infinity as null — as Postgres (jsonb via Prisma) stores it. Null stays null.
 */
export function jsonColumn<T>(v: T | null | undefined): T | null {
  return v === null || v === undefined ? null : (JSON.parse(JSON.stringify(v)) as T);
}

/** A patch as Prisma applies it: members set to `undefined` are left alone. */
export function definedOnly<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID.test(s);

/** Postgres refuses a row whose uuid column is not a UUID or whose foreign key points nowhere. */
export class ConstraintViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConstraintViolation';
  }
}

/** Order by a time (asc) with the id as tie-breaker, as the Prisma queries do (uuid order = lowercase hex order). */
export const byTimeThenId = <R extends { id: string }>(at: (r: R) => Date) => (a: R, b: R): number =>
  at(a).getTime() - at(b).getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export abstract class InMemoryRepository {
  constructor(protected readonly s: InMemoryState, protected readonly now: () => Date) {}

  /** Appends to the shared audit log (the Prisma repositories write it in the same transaction). */
  protected log(entry: AuditEntry): void {
    const { details, ...rest } = entry;
    const d = jsonColumn(details);
    this.s.audit.push({ ...copy(rest), ...(d ? { details: d } : {}), at: this.now() });
  }
}
