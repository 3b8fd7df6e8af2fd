import { ClusterScanAudit } from './cluster-scan/cluster-scan.audit';
import { ReTraceAudit } from './re-trace/re-trace.audit';
import { ReconcileAudit } from './reconcile/reconcile.audit';
import { SiblingSweepAudit } from './sibling-sweep/sibling-sweep.audit';
import { CancelAuditRunUseCase, GetAuditRunUseCase, ListAuditFindingsUseCase, ListAuditRunsUseCase, StartAuditUseCase } from './manage-audits.use-case';
import { RunAuditUseCase } from './run-audit.use-case';
import { AdmissionCheck } from './admission/admission-check';
import { DeleteAuditScheduleUseCase, ListAuditSchedulesUseCase, RunScheduledAuditUseCase, SetAuditScheduleUseCase } from './audit-schedules.use-case';

export * from './cluster-scan/cluster-scan.audit';
export * from './re-trace/re-trace.audit';
export * from './reconcile/reconcile.audit';
export * from './sibling-sweep/sibling-sweep.audit';
export * from './audit-queue.port';
export * from './admission/admission-check';
export * from './watchlist';
export * from './audit-schedules.use-case';
export * from './audits.schema';
export * from './manage-audits.use-case';
export * from './run-audit.use-case';

/** Every audit kind's handler class (built by the composition root like a use case; the runner injects them by class). */
export const AUDIT_HANDLERS = [ReconcileAudit, SiblingSweepAudit, ReTraceAudit, ClusterScanAudit] as const;

/** The audit use cases (runner + management), for USE_CASES. */
export const AUDIT_USE_CASES = [...AUDIT_HANDLERS, RunAuditUseCase, StartAuditUseCase, ListAuditRunsUseCase, GetAuditRunUseCase, ListAuditFindingsUseCase, CancelAuditRunUseCase,
  ListAuditSchedulesUseCase, SetAuditScheduleUseCase, DeleteAuditScheduleUseCase, RunScheduledAuditUseCase, AdmissionCheck] as const;
