import type { AnswerRepository, AnswerRow, NewAnswer } from '@forensics/core';
import type { Answer, PrismaClient } from '../generated/client';
import { isUuid } from './prisma-json';

const toRow = (a: Answer): AnswerRow => ({ ...a, source: a.source === 'builtin' ? 'builtin' : 'external' });

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
}
