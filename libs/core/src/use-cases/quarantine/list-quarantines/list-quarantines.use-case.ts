import type { QuarantineFilter, QuarantineRepository, QuarantineRow } from '../../../ports/repositories';
import { QUARANTINES } from '../../../ports/tokens';
import type { InjectMap } from '../../../use-case';

export interface ListQuarantinesDeps { quarantines: QuarantineRepository }

/** Quarantine records, filtered by state / collection / event. */
export class ListQuarantinesUseCase {
  static readonly inject: InjectMap<ListQuarantinesDeps> = { quarantines: QUARANTINES };
  constructor(private readonly deps: ListQuarantinesDeps) {}

  async execute(filter: Omit<QuarantineFilter, 'unsynced'>): Promise<QuarantineRow[]> {
    return this.deps.quarantines.list(filter);
  }
}
