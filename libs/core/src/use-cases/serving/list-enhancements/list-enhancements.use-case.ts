import type { EnhancementFilter, EnhancementRepository, EnhancementRow } from '../../../ports/repositories';
import { ENHANCEMENTS } from '../../../ports/tokens';
import type { InjectMap } from '../../../use-case';

export interface ListEnhancementsDeps { enhancements: EnhancementRepository }

/** Benign-text enhancements, filtered by collection / event / state. */
export class ListEnhancementsUseCase {
  static readonly inject: InjectMap<ListEnhancementsDeps> = { enhancements: ENHANCEMENTS };
  constructor(private readonly deps: ListEnhancementsDeps) {}

  async execute(filter: EnhancementFilter): Promise<EnhancementRow[]> {
    return this.deps.enhancements.list(filter);
  }
}
