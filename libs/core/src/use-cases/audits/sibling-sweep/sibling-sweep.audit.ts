import type { AuditContext, AuditKindHandler } from '../../../ports/audits.port';
import type { InjectMap } from '../../../use-case';

// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface SiblingSweepAuditDeps {}

/** The `sibling-sweep` audit (issue 12). Work in progress: replaced by its implementation. */
export class SiblingSweepAudit implements AuditKindHandler {
  static readonly inject: InjectMap<SiblingSweepAuditDeps> = {};
  readonly kind = 'sibling-sweep' as const;
  constructor(private readonly deps: SiblingSweepAuditDeps) {}

  async execute(ctx: AuditContext): Promise<void> {
    void this.deps;
    throw new Error(`the sibling-sweep audit is not built yet (run ${ctx.run.id})`);
  }
}
