import type { AnswerRepository, AnswerRow, NewAnswer } from '@forensics/core';
import type { Answer, PrismaClient } from '../generated/client';
import { isUuid } from './prisma-json';

export const toRow = (a: Answer): AnswerRow => ({ ...a, source: a.source === 'builtin' ? 'builtin' : 'external' });

export class PrismaAnswerRepository implements AnswerRepository {
  constructor(private readonly db: PrismaClient) {}

  async create(a: NewAnswer): Promise<AnswerRow> {
    return toRow(await this.db.answer.create({ data: a }));
  }

  async get(id: string): Promise<AnswerRow | null> {
    if (!isUuid(id)) return null;
    const a = await this.db.answer.findUnique({ where: { id } });
    return a ? toRow(a) : null;
  }

  async listServing(collection: string, documentIds: readonly string[], limit: number): Promise<AnswerRow[]> {
    if (documentIds.length === 0 || limit < 1) return [];
    // `servedIds && ARRAY[...]` (hasSome) is answered by the GIN index on servedIds (migration 20261123190000).
    const rows = await this.db.answer.findMany({ where: { collection, servedIds: { hasSome: [...documentIds] } }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: limit });
    return rows.map(toRow);
  }
}
