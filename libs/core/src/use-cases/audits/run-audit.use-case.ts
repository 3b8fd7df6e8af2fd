import {
  AuditCancelledError, AUDIT_RUNS, type AuditContext, type AuditFindingRow, type AuditKind, type AuditKindHandler, type AuditRunRepository, type AuditRunRow, type NewAuditFinding,
} from '../../ports/audits.port';
import type { DomainEventPublisher } from '../../ports/domain-events.port';
import type { AuditLogRepository, JsonObject } from '../../ports/repositories';
import type { Failpoints } from '../../ports/runtime.port';
import { AUDIT_LOG, CORE_SETTINGS, DOMAIN_EVENTS, FAILPOINTS } from '../../ports/tokens';
import type { CoreSettings } from '../../settings';
import type { InjectMap } from '../../use-case';
import { QuarantineTextUseCase } from '../quarantine/quarantine-text/quarantine-text.use-case';
import { DEFAULT_AUDIT_SETTINGS } from './audit-queue.port';
import { ClusterScanAudit } from './cluster-scan/cluster-scan.audit';
import { ReTraceAudit } from './re-trace/re-trace.audit';
import { ReconcileAudit } from './reconcile/reconcile.audit';
import { SiblingSweepAudit } from './sibling-sweep/sibling-sweep.audit';

export interface RunAuditDeps {
  runs: AuditRunRepository;
  quarantineText: QuarantineTextUseCase;
  events: DomainEventPublisher;
  audit: AuditLogRepository;
  settings: CoreSettings;
  failpoints: Failpoints;
  reconcile: ReconcileAudit;
  siblingSweep: SiblingSweepAudit;
  reTrace: ReTraceAudit;
  clusterScan: ClusterScanAudit;
}

export interface RunAuditResult {
  run: AuditRunRow;
  seconds: number;
}

/**
 * Runs (or resumes) one audit run: RUNNING → the kind's handler with an AuditContext → SUCCEEDED /
 * FAILED / CANCELLED, then `audit.finished`. Called by the `audits` queue's processor (a killed
 * worker's job is retried and the handler continues from its last checkpoint) or inline by the CLI.
 * A transient failure (database, store) is rethrown so the job is retried; the run stays RUNNING
 * with its cursor.
 */
export class RunAuditUseCase {
  static readonly inject: InjectMap<RunAuditDeps> = {
    runs: AUDIT_RUNS, quarantineText: QuarantineTextUseCase, events: DOMAIN_EVENTS, audit: AUDIT_LOG, settings: CORE_SETTINGS, failpoints: FAILPOINTS,
    reconcile: ReconcileAudit, siblingSweep: SiblingSweepAudit, reTrace: ReTraceAudit, clusterScan: ClusterScanAudit,
  };
  constructor(private readonly deps: RunAuditDeps) {}

  handlerFor(kind: AuditKind): AuditKindHandler {
    const d = this.deps;
    const byKind: Record<AuditKind, AuditKindHandler> = { reconcile: d.reconcile, 'sibling-sweep': d.siblingSweep, 're-trace': d.reTrace, 'cluster-scan': d.clusterScan };
    return byKind[kind];
  }

  /**
   * `isFinalAttempt` (the queue's last attempt, or inline): a failure marks the run FAILED instead of
   * leaving it RUNNING for the retry. `log` receives the handler's progress lines.
   */
  async execute(cmd: { runId: string; isFinalAttempt?: boolean; log?: (message: string, fields?: Record<string, unknown>) => void }): Promise<RunAuditResult | null> {
    const started = Date.now();
    const running = await this.deps.runs.markRunning(cmd.runId);
    if (!running) return null; // finished or cancelled meanwhile: nothing to do (a duplicate job is harmless)
    const ctx = this.contextFor(running, cmd.log);
    let final: AuditRunRow;
    try {
      if (running.cancelRequested) throw new AuditCancelledError(running.id);
      await this.handlerFor(running.kind).execute(ctx);
      final = await this.deps.runs.finish(running.id, 'SUCCEEDED');
    } catch (e) {
      if (e instanceof AuditCancelledError) final = await this.deps.runs.finish(running.id, 'CANCELLED');
      else if (cmd.isFinalAttempt ?? true) final = await this.deps.runs.finish(running.id, 'FAILED', (e as Error).message.slice(0, 2000));
      else throw e;
    }
    await this.deps.audit.append({
      actor: running.startedBy, action: `audit.${final.status.toLowerCase()}`, entityType: 'AuditRun', entityId: final.id,
      details: { kind: final.kind, collection: final.collection, counts: final.counts, findings: final.findingsCount, ...(final.error ? { error: final.error } : {}) } as JsonObject,
    });
    await this.deps.events.publish({
      type: 'audit.finished',
      data: { runId: final.id, kind: final.kind, collection: final.collection, status: final.status, counts: final.counts, findings: final.findingsCount },
    });
    return { run: final, seconds: (Date.now() - started) / 1000 };
  }

  private contextFor(
    run: AuditRunRow, log?: (message: string, fields?: Record<string, unknown>) => void,
  ): AuditContext {
    const d = this.deps;
    let cursor = run.cursor;
    let checkpoints = 0;
    const audit = { ...DEFAULT_AUDIT_SETTINGS, ...d.settings.audit };
    return {
      run,
      cursor: <T>() => (cursor ?? null) as T | null,
      checkpoint: async (update) => {
        const row = await d.runs.checkpoint(run.id, update);
        if (update.cursor !== undefined) cursor = update.cursor;
        // Crash tests: `audit.checkpoint.<n>` right after the n-th checkpoint of this execution is persisted.
        d.failpoints.hit(`audit.checkpoint.${++checkpoints}`);
        if (row.cancelRequested) throw new AuditCancelledError(run.id);
      },
      finding: (f: NewAuditFinding): Promise<AuditFindingRow> => d.runs.addFinding(run.id, f),
      review: async ({ documentIds, reason, evidence, withhold }) => {
        const quarantine = audit.autoQuarantine;
        const state = quarantine ? 'QUARANTINED' as const : 'NEEDS_REVIEW' as const;
        const ids: string[] = [];
        for (const documentId of documentIds) {
          const res = await d.quarantineText.execute({
            documentId, feedbackId: null, collection: run.collection, reason: `audit ${run.kind}: ${reason}`, policy: 'audit',
            state, servedDuringReview: !quarantine && !withhold,
            evidence: {
              policy: {
                name: 'audit', decision: quarantine ? 'QUARANTINE' : 'NEEDS_REVIEW', withhold: quarantine || !!withhold,
                reason: quarantine ? 'AUDIT_AUTO_QUARANTINE is on: audit findings quarantine' : 'audit finding: needs a human decision',
                inputs: { auditRunId: run.id, kind: run.kind } as JsonObject,
              },
              judge: { kind: 'audit', model: run.kind, promptVersion: 'audit-v1', signals: null },
              retrieval: null,
              retrieverEvidence: null,
              ...({ audit: { runId: run.id, kind: run.kind, ...evidence } } as object),
            },
            actor: `audit:${run.kind}:${run.id}`,
          });
          ids.push(res.record.id);
        }
        return { quarantineIds: ids, state };
      },
      log: (message, fields) => log?.(message, fields),
    };
  }
}
