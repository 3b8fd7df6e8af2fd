import { NotFoundError, ValidationError } from '../../domain/errors';
import type { AuditKind } from '../../ports/audits.port';
import type { AuditLogRepository, DocumentRepository, JsonObject } from '../../ports/repositories';
import { AUDIT_LOG, CORE_SETTINGS, DOCUMENTS } from '../../ports/tokens';
import type { CoreSettings } from '../../settings';
import type { InjectMap } from '../../use-case';
import { assertAuditKindBuilt, AUDIT_SCHEDULES, type AuditSchedule, type AuditSchedules } from './audit-queue.port';

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
