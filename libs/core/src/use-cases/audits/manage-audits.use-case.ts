import { NotFoundError, ValidationError } from '../../domain/errors';
import { AUDIT_RUNS, type AuditFindingRow, type AuditKind, type AuditRunFilter, type AuditRunRepository, type AuditRunRow, type AuditTrigger } from '../../ports/audits.port';
import type { AuditLogRepository, DocumentRepository, JsonObject } from '../../ports/repositories';
import { AUDIT_LOG, CORE_SETTINGS, DOCUMENTS } from '../../ports/tokens';
import type { CoreSettings } from '../../settings';
import type { InjectMap } from '../../use-case';
import { assertAuditKindBuilt, AUDIT_QUEUE, type AuditQueue } from './audit-queue.port';
import { AUDIT_PAGE_MAX } from './audits.schema';

export interface StartAuditDeps { runs: AuditRunRepository; queue: AuditQueue; documents: DocumentRepository; audit: AuditLogRepository; settings: CoreSettings }

export interface StartAuditCommand {
  kind: AuditKind;
  collection?: string;
  params?: Record<string, unknown>;
  trigger: AuditTrigger;
  actor: string;
  /** false: create the run only (the CLI runs it inline). Default true: put it on the audits queue. */
  enqueue?: boolean;
}

/** Creates an audit run (QUEUED) for an existing collection and queues it; audited. */
export class StartAuditUseCase {
  static readonly inject: InjectMap<StartAuditDeps> = { runs: AUDIT_RUNS, queue: AUDIT_QUEUE, documents: DOCUMENTS, audit: AUDIT_LOG, settings: CORE_SETTINGS };
  constructor(private readonly deps: StartAuditDeps) {}

  async execute(cmd: StartAuditCommand): Promise<AuditRunRow> {
    assertAuditKindBuilt(cmd.kind);
    const collection = cmd.collection ?? this.deps.settings.defaultCollection;
    if (!(await this.deps.documents.getCollection(collection))) throw new ValidationError(`collection: '${collection}' does not exist (ingest texts into it first)`);
    const run = await this.deps.runs.create({ kind: cmd.kind, collection, params: cmd.params ?? {}, trigger: cmd.trigger, startedBy: cmd.actor });
    await this.deps.audit.append({
      actor: cmd.actor, action: 'audit.started', entityType: 'AuditRun', entityId: run.id,
      details: { kind: run.kind, collection, trigger: cmd.trigger, params: run.params } as JsonObject,
    });
    if (cmd.enqueue ?? true) await this.deps.queue.enqueue(run.id);
    return run;
  }
}

export interface AuditReadDeps { runs: AuditRunRepository }

export class ListAuditRunsUseCase {
  static readonly inject: InjectMap<AuditReadDeps> = { runs: AUDIT_RUNS };
  constructor(private readonly deps: AuditReadDeps) {}
  /** Newest first; `before` = the last id of the previous page. */
  async execute(filter: AuditRunFilter): Promise<{ items: AuditRunRow[]; next: string | null }> {
    const limit = Math.min(Math.max(1, filter.limit ?? 50), AUDIT_PAGE_MAX);
    const items = await this.deps.runs.list({ ...filter, limit: limit + 1 });
    const page = items.slice(0, limit);
    return { items: page, next: items.length > limit ? page[page.length - 1]!.id : null };
  }
}

export class GetAuditRunUseCase {
  static readonly inject: InjectMap<AuditReadDeps> = { runs: AUDIT_RUNS };
  constructor(private readonly deps: AuditReadDeps) {}
  async execute(cmd: { id: string }): Promise<AuditRunRow> {
    const run = await this.deps.runs.get(cmd.id);
    if (!run) throw new NotFoundError(`audit run ${cmd.id} not found`);
    return run;
  }
}

export class ListAuditFindingsUseCase {
  static readonly inject: InjectMap<AuditReadDeps> = { runs: AUDIT_RUNS };
  constructor(private readonly deps: AuditReadDeps) {}
  async execute(cmd: { id: string; limit?: number; after?: string }): Promise<{ items: AuditFindingRow[]; next: string | null }> {
    if (!(await this.deps.runs.get(cmd.id))) throw new NotFoundError(`audit run ${cmd.id} not found`);
    const limit = Math.min(Math.max(1, cmd.limit ?? 100), AUDIT_PAGE_MAX);
    const items = await this.deps.runs.listFindings(cmd.id, { limit: limit + 1, after: cmd.after });
    const page = items.slice(0, limit);
    return { items: page, next: items.length > limit ? page[page.length - 1]!.id : null };
  }
}

export interface CancelAuditDeps { runs: AuditRunRepository; audit: AuditLogRepository }

/** QUEUED → CANCELLED; RUNNING → stops at the handler's next checkpoint. Audited. */
export class CancelAuditRunUseCase {
  static readonly inject: InjectMap<CancelAuditDeps> = { runs: AUDIT_RUNS, audit: AUDIT_LOG };
  constructor(private readonly deps: CancelAuditDeps) {}
  async execute(cmd: { id: string; actor: string }): Promise<AuditRunRow> {
    const run = await this.deps.runs.cancel(cmd.id);
    if (!run) throw new NotFoundError(`audit run ${cmd.id} not found`);
    await this.deps.audit.append({ actor: cmd.actor, action: 'audit.cancel', entityType: 'AuditRun', entityId: run.id, details: { status: run.status } });
    return run;
  }
}
