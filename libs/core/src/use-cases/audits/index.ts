import { ClusterScanAudit } from './cluster-scan/cluster-scan.audit';
import { ReTraceAudit } from './re-trace/re-trace.audit';
import { ReconcileAudit } from './reconcile/reconcile.audit';
import { SiblingSweepAudit } from './sibling-sweep/sibling-sweep.audit';

export * from './cluster-scan/cluster-scan.audit';
export * from './re-trace/re-trace.audit';
export * from './reconcile/reconcile.audit';
export * from './sibling-sweep/sibling-sweep.audit';

/** Every audit kind's handler class (built by the composition root like a use case; the runner injects them by class). */
export const AUDIT_HANDLERS = [ReconcileAudit, SiblingSweepAudit, ReTraceAudit, ClusterScanAudit] as const;
