import type { AuditEntry, AuditLogRepository, AuditRecord, JsonObject } from '@forensics/core';
import type { PrismaClient } from '../generated/client';
import { fromJson, toJson } from './prisma-json';

/** The append-only audit log (a trigger refuses UPDATE and DELETE). */
export class PrismaAuditLogRepository implements AuditLogRepository {
  constructor(private readonly db: PrismaClient) {}

  async append(entry: AuditEntry): Promise<void> {
    await this.db.auditLog.create({ data: { actor: entry.actor, action: entry.action, entityType: entry.entityType, entityId: entry.entityId, details: toJson(entry.details) } });
  }

  async listFor(entityType: string, entityId: string): Promise<AuditRecord[]> {
    const rows = await this.db.auditLog.findMany({ where: { entityType, entityId }, orderBy: { id: 'asc' } });
    return rows.map((r) => ({ at: r.at, actor: r.actor, action: r.action, entityType: r.entityType, entityId: r.entityId, details: fromJson<JsonObject>(r.details) ?? undefined }));
  }
}
