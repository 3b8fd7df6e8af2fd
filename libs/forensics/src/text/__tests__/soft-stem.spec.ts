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
  it('meets a role and its field (judge v14: -ist, -ian, -ure, -acy, -ate, -man/-men, -y)', () => {
    expect(softStem('guitarist')).toBe(softStem('guitar'));
    expect(softStem('musician')).toBe(softStem('music'));
    expect(softStem('cinematographer')).toBe(softStem('cinematography'));
    expect(softStem('architect')).toBe(softStem('architecture'));
    expect(softStem('confederacy')).toBe(softStem('confederate'));
    expect(softStem('defenseman')).toBe(softStem('defensemen'));
    expect(softStem('historian')).toBe(softStem('history'));
    // v16: Latinate verb and adjective endings.
    expect(softStem('nominated')).toBe(softStem('nominations'));
    expect(softStem('discriminatory')).toBe(softStem('discrimination'));
    expect(softStem('postovulatory')).toBe(softStem('postovulation'));
    // Still at least 4 letters: short words keep their ending.
    expect(softStem('german')).toBe('german');
    expect(softStem('woman')).toBe('woman');
  });
  it('keeps numbers and short stems whole', () => {
    expect(softStem('1871')).toBe('1871');
    expect(softStem('owed')).toBe('owed');
    expect(softStem('payment')).toBe('payment');
  });
});
