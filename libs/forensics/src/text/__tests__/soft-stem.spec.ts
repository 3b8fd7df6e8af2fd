import { contentTerms, softStem } from '@forensics/algorithms';

describe('softStem', () => {
  it('takes common suffixes off while at least 4 letters remain, so derived forms meet', () => {
    expect(softStem('representation')).toBe('represent');
    expect(softStem('represented')).toBe('represent');
    expect(softStem('operational')).toBe('oper');
    // Content terms are plural-stemmed first: "operations" → "operation" → "oper", the same stem.
    expect(contentTerms('operations').map(softStem)).toEqual(['oper']);
    expect(softStem('creditor')).toBe('credit');
    expect(softStem('dredging')).toBe(softStem('dredged'));
  });
  it('keeps numbers and short stems whole', () => {
    expect(softStem('1871')).toBe('1871');
    expect(softStem('owed')).toBe('owed');
    expect(softStem('payment')).toBe('payment');
  });
});
