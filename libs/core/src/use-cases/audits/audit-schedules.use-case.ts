import { NotFoundError, ValidationError } from '../../domain/errors';
import type { AuditKind, AuditRunRow } from '../../ports/audits.port';
import type { AuditLogRepository, DocumentRepository, JsonObject } from '../../ports/repositories';
import { AUDIT_LOG, CORE_SETTINGS, DOCUMENTS } from '../../ports/tokens';
import type { CoreSettings } from '../../settings';
import type { InjectMap } from '../../use-case';
import { assertAuditKindBuilt, AUDIT_SCHEDULES, type AuditSchedule, type AuditSchedules } from './audit-queue.port';
import { StartAuditUseCase } from './manage-audits.use-case';

export interface AuditScheduleDeps { schedules: AuditSchedules; documents: DocumentRepository; audit: AuditLogRepository; settings: CoreSettings }
const inject: InjectMap<AuditScheduleDeps> = { schedules: AUDIT_SCHEDULES, documents: DOCUMENTS, audit: AUDIT_LOG, settings: CORE_SETTINGS };

export class ListAuditSchedulesUseCase {
  static readonly inject = inject;
  constructor(private readonly deps: AuditScheduleDeps) {}
  execute(): Promise<AuditSchedule[]> { return this.deps.schedules.list(); }
}

/** Creates or replaces the schedule of (kind, collection); audited. The cron pattern is checked by the scheduler (bad → 400). */
export class SetAuditScheduleUseCase {
  static readonly inject = inject;
  constructor(private readonly deps: AuditScheduleDeps) {}
  async execute(cmd: { kind: AuditKind; collection?: string; cron: string; params?: Record<string, unknown>; actor: string }): Promise<AuditSchedule> {
    assertAuditKindBuilt(cmd.kind);
    const collection = cmd.collection ?? this.deps.settings.defaultCollection;
    if (!(await this.deps.documents.getCollection(collection))) throw new ValidationError(`collection: '${collection}' does not exist (ingest texts into it first)`);
    const s = await this.deps.schedules.upsert({ kind: cmd.kind, collection, cron: cmd.cron, params: cmd.params ?? {} });
    await this.deps.audit.append({ actor: cmd.actor, action: 'audit.schedule.set', entityType: 'AuditSchedule', entityId: `${cmd.kind}:${collection}`, details: { cron: cmd.cron, params: cmd.params ?? {} } as JsonObject });
    return s;
  }
}

export class DeleteAuditScheduleUseCase {
  static readonly inject = inject;
  constructor(private readonly deps: AuditScheduleDeps) {}
  async execute(cmd: { kind: AuditKind; collection?: string; actor: string }): Promise<void> {
    const collection = cmd.collection ?? this.deps.settings.defaultCollection;
    if (!(await this.deps.schedules.remove(cmd.kind, collection))) throw new NotFoundError(`no ${cmd.kind} schedule for collection '${collection}'`);
    await this.deps.audit.append({ actor: cmd.actor, action: 'audit.schedule.deleted', entityType: 'AuditSchedule', entityId: `${cmd.kind}:${collection}` });
  }
}

/**
 * The collection of a schedule that audits every collection there is at each tick (an AUDIT_SCHEDULE entry
 * that names none). Not a valid collection name (COLLECTION_NAME), so never a real collection's.
 */
export const EVERY_COLLECTION = '*';

/**
 * One tick of an audit schedule. `source` says where the schedule was set, so that a skipped tick can name
 * what to change: `AUDIT_SCHEDULE` with its `entry` as written there, or `api` (PUT /v1/audits/schedules/:kind).
 */
export interface ScheduledAuditTick {
  kind: AuditKind;
  collection: string;
  params?: Record<string, unknown>;
  source?: 'AUDIT_SCHEDULE' | 'api';
  entry?: string;
}

/**
 * What a tick did: the runs it started, and each collection it skipped with why and what to change
 * (`collection` null: a schedule of every collection found none, as on a service with no texts yet).
 */
export interface ScheduledAuditOutcome { runs: AuditRunRow[]; skipped: { collection: string | null; reason: string }[] }

export interface RunScheduledAuditDeps { start: StartAuditUseCase; documents: DocumentRepository }

/**
 * A schedule's tick: one run of its kind for its collection, or for every collection that exists
 * (EVERY_COLLECTION). A collection that does not exist is skipped, not failed (nothing to audit); the
 * reason names the setting to change, since the same skip comes back at every tick until someone does
 * (issue 57: the hourly reconcile of 'default' was skipped for good where the data lives in named
 * collections, and the line said only that 'default' did not exist).
 */
export class RunScheduledAuditUseCase {
  static readonly inject: InjectMap<RunScheduledAuditDeps> = { start: StartAuditUseCase, documents: DOCUMENTS };
  constructor(private readonly deps: RunScheduledAuditDeps) {}

  async execute(tick: ScheduledAuditTick): Promise<ScheduledAuditOutcome> {
    const every = tick.collection === EVERY_COLLECTION;
    const names = every ? (await this.deps.documents.listCollections()).map((c) => c.name) : [tick.collection];
    if (!names.length) return { runs: [], skipped: [{ collection: null, reason: `no collection exists yet; ${whatToChange(tick)}` }] };
    const out: ScheduledAuditOutcome = { runs: [], skipped: [] };
    for (const collection of names) {
      try {
        out.runs.push(await this.deps.start.execute({ kind: tick.kind, collection, params: tick.params, trigger: 'schedule', actor: `scheduler:${tick.kind}` }));
      } catch (e) {
        // Listed a moment ago and gone now, or named by the schedule and never created: nothing to audit there.
        if (!(e instanceof ValidationError)) throw e;
        out.skipped.push({ collection, reason: `${e.message}; ${whatToChange(tick)}` });
      }
    }
    return out;
  }
}

/** What an operator changes to stop a schedule's skips: the setting or the API call that set it. */
function whatToChange(tick: ScheduledAuditTick): string {
  if (tick.collection === EVERY_COLLECTION) return `the ${tick.kind} schedule (AUDIT_SCHEDULE entry '${tick.entry ?? tick.kind}') audits every collection once there is one`;
  if (tick.source === 'AUDIT_SCHEDULE') {
    return `the schedule is AUDIT_SCHEDULE's entry '${tick.entry ?? `${tick.kind}:${tick.collection}`}': change it to name an existing collection, or leave the collection out to audit every collection`;
  }
  return `the schedule was set over the API: DELETE /v1/audits/schedules/${tick.kind}?collection=${tick.collection} removes it, PUT /v1/audits/schedules/${tick.kind} replaces it`;
}
