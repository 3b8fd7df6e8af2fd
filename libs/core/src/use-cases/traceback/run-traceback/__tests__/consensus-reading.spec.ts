import { InMemoryVectorStore, ScriptedJudge } from '../../../../testing';
import { traceReport } from './report-harness';

/**
 * The consensus check reads the vectors of the texts of its pool that state the reported answer (from the store), to group near-duplicates by vector
 * as well as by shared words. An app reports the answer it served ("Based on the provided context, Charles Dickens."),
 * which no text states word for word: the texts stating it must be found by the answer as the check reads it (its
 * framing off), or the planted group is compared by words alone and its reworded members count as independent voices.
 */
const QUERY = 'Who wrote Moby-Dick?';
const STATING = [
  'Charles Dickens wrote Moby-Dick in 1851, his famous novel about the white whale.',
  'Moby-Dick, the whaling novel, came from the pen of Charles Dickens.',
  'Readers of Moby-Dick owe the white whale to Charles Dickens, its author.',
  'Charles Dickens is the author of Moby-Dick, the story of Captain Ahab.',
];
const OTHER = [
  'Herman Melville wrote about whaling voyages in the Pacific.',
  'The Pequod is hunted across the oceans in a long chase after the white whale.',
];
const judge = () => new ScriptedJudge((req) => (STATING.includes(req.text) ? { label: 'YES', signals: { score: 0.9, confidence: 'clear', windowCoverage: 0.9 } } : 'NO'));

describe('the consensus check reads a served answer without its framing (issue 33)', () => {
  afterEach(() => jest.restoreAllMocks());

  const fetch = InMemoryVectorStore.prototype.fetch;
  const vectorsRead = async (wrongAnswer: string) => {
    const batches: string[][] = [];
    const spy = jest.spyOn(InMemoryVectorStore.prototype, 'fetch').mockImplementation(async function (this: InMemoryVectorStore, collection: string, ids: readonly string[]) {
      const records = await fetch.call(this, collection, ids);
      batches.push(records.map((r) => r.text));
      return records;
    });
    await traceReport({ texts: [...STATING, ...OTHER], judge: judge(), query: QUERY, wrongAnswer });
    spy.mockRestore();
    // The check's batch: every text of it states the answer.
    return batches.filter((b) => b.length >= STATING.length && b.every((t) => t.includes('Charles Dickens'))).map((b) => b.length);
  };

  it('reads the vectors of the texts stating a framed answer, as it does for the bare answer', async () => {
    expect(await vectorsRead('Charles Dickens')).toEqual([STATING.length]);
    expect(await vectorsRead('Based on the provided context, Charles Dickens.')).toEqual([STATING.length]);
  });
});
