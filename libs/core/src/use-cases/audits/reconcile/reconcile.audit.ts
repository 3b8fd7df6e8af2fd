import type { AuditContext, AuditKindHandler } from '../../../ports/audits.port';
import type { InjectMap } from '../../../use-case';

// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ReconcileAuditDeps {}

/** The `reconcile` audit (issue 12). Work in progress: replaced by its implementation. */
export class ReconcileAudit implements AuditKindHandler {
  static readonly inject: InjectMap<ReconcileAuditDeps> = {};
  readonly kind = 'reconcile' as const;
  constructor(private readonly deps: ReconcileAuditDeps) {}

  async execute(ctx: AuditContext): Promise<void> {
    void this.deps;
    throw new Error(`the reconcile audit is not built yet (run ${ctx.run.id})`);
  }
}
