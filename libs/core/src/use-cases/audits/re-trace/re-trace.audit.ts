import type { AuditContext, AuditKindHandler } from '../../../ports/audits.port';
import type { InjectMap } from '../../../use-case';

// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ReTraceAuditDeps {}

/** The `re-trace` audit (issue 12). Work in progress: replaced by its implementation. */
export class ReTraceAudit implements AuditKindHandler {
  static readonly inject: InjectMap<ReTraceAuditDeps> = {};
  readonly kind = 're-trace' as const;
  constructor(private readonly deps: ReTraceAuditDeps) {}

  async execute(ctx: AuditContext): Promise<void> {
    void this.deps;
    throw new Error(`the re-trace audit is not built yet (run ${ctx.run.id})`);
  }
}
