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
}
