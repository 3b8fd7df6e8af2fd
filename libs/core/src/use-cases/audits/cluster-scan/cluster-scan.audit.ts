import type { AuditContext, AuditKindHandler } from '../../../ports/audits.port';
import type { InjectMap } from '../../../use-case';

// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ClusterScanAuditDeps {}

/** The `cluster-scan` audit (issue 12). Work in progress: replaced by its implementation. */
export class ClusterScanAudit implements AuditKindHandler {
  static readonly inject: InjectMap<ClusterScanAuditDeps> = {};
  readonly kind = 'cluster-scan' as const;
  constructor(private readonly deps: ClusterScanAuditDeps) {}

  async execute(ctx: AuditContext): Promise<void> {
    void this.deps;
    throw new Error(`the cluster-scan audit is not built yet (run ${ctx.run.id})`);
  }
}
