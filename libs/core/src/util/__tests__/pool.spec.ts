import { mapPool } from '../pool';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('mapPool', () => {
  it('keeps input order with several in flight', async () => {
    const out = await mapPool([30, 10, 20, 0], 2, async (ms, i) => { await new Promise((r) => setTimeout(r, ms)); return i; });
    expect(out).toEqual([0, 1, 2, 3]);
  });

  it('on a failure starts no further item and settles the ones in flight before it throws', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = mapPool([0, 1, 2, 3, 4, 5], 3, async (i) => {
      started.push(i);
      if (i === 0) { await tick(); throw new Error('judge down'); }
      await new Promise((r) => setTimeout(r, 40));
      finished.push(i);
      return i;
    });
    await expect(run).rejects.toThrow('judge down');
    // Items 1 and 2 were in flight when item 0 failed: they settled before the pool threw; nothing else started.
    expect(started).toEqual([0, 1, 2]);
    expect(finished.sort()).toEqual([1, 2]);
    await new Promise((r) => setTimeout(r, 60));
    expect(started).toEqual([0, 1, 2]);
  });
});
