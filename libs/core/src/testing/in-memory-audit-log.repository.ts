import type { AuditEntry, AuditLogRepository, AuditRecord } from '../ports/repositories';
import { copy, InMemoryRepository } from './in-memory-state';

/** The append-only audit log, in append order. */
export class InMemoryAuditLogRepository extends InMemoryRepository implements AuditLogRepository {
  async append(entry: AuditEntry): Promise<void> {
    this.log(entry);
  }

  async listFor(entityType: string, entityId: string): Promise<AuditRecord[]> {
    return this.s.audit.filter((a) => a.entityType === entityType && a.entityId === entityId).map(copy);
  }
}
