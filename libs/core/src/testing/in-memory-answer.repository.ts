import { randomUUID } from 'node:crypto';
import type { AnswerRepository, AnswerRow, NewAnswer } from '../ports/repositories';
import { copy, InMemoryRepository } from './in-memory-state';

/** The answer log. */
export class InMemoryAnswerRepository extends InMemoryRepository implements AnswerRepository {
  async create(a: NewAnswer): Promise<AnswerRow> {
    const row: AnswerRow = { ...copy(a), id: randomUUID(), createdAt: this.now() };
    this.s.answers.set(row.id, row);
    return copy(row);
  }

  async get(id: string): Promise<AnswerRow | null> {
    const a = this.s.answers.get(id);
    return a ? copy(a) : null;
  }

  async listServing(collection: string, documentIds: readonly string[], limit: number): Promise<AnswerRow[]> {
    const ids = new Set(documentIds);
    return [...this.s.answers.values()]
      .filter((a) => a.collection === collection && a.servedIds.some((id) => ids.has(id)))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? -1 : 1))
      .slice(0, Math.max(0, limit))
      .map(copy);
  }
}
