import { readerFeatures, READER_FEATURES, type ReaderVectors } from '../reader.features';

const v = (...xs: number[]) => Float32Array.from(xs);

describe('readerFeatures', () => {
  const base: ReaderVectors = { query: v(1, 0, 0), queryAnswer: v(1, 1, 0), answerInQuery: v(0, 1, 0), text: v(1, 0, 1), claims: [], others: [] };

  it('reads 0 on the claim features when no sentence states the answer, the text still compared', () => {
    const f = readerFeatures(base);
    expect(f).toEqual({ claimQuery: 0, claimQueryAnswer: 0, textQuery: expect.closeTo(Math.SQRT1_2, 6), answerInContext: 0, asideMargin: 0 });
    expect(Object.keys(f).sort()).toEqual([...READER_FEATURES].sort());
  });

  it('takes the best claim, clips negative cosines at 0, and measures how far the question is read elsewhere', () => {
    const f = readerFeatures({
      ...base,
      claims: [{ sentence: v(-1, 0, 0), answerTokens: v(0, -1, 0) }, { sentence: v(0.6, 0.8, 0), answerTokens: v(0, 1, 0) }],
      others: [v(1, 0, 0)],
    });
    expect(f.claimQuery).toBeCloseTo(0.6, 6);
    expect(f.claimQueryAnswer).toBeCloseTo((0.6 + 0.8) / Math.SQRT2, 6);
    expect(f.answerInContext).toBeCloseTo(1, 6);
    expect(f.asideMargin).toBeCloseTo(0.4, 6);
  });

  it('reads 0 for the answer in context when its tokens are not found on one side', () => {
    expect(readerFeatures({ ...base, answerInQuery: null, claims: [{ sentence: v(1, 0, 0), answerTokens: v(0, 1, 0) }] }).answerInContext).toBe(0);
  });
});
