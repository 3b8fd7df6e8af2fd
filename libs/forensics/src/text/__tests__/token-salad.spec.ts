import { hasEdgeTokenSalad, longestContentRun, withoutTokenSalad } from '../token-salad';

describe('longestContentRun', () => {
  it('is short for prose: function words break every few words', () => {
    expect(longestContentRun('The river flows north, and its longest tributary joins it near the old mill town.')).toBeLessThan(8);
  });

  it('measures a run of gibberish, allowing one stray function word inside it', () => {
    const salad = 'quorn velta abrim stoke lanter pivex on domber quillo hastrem norvik pelto';
    expect(longestContentRun(`${salad}. The river is long.`)).toBe(12);
    // A second function word ends the window: the longest stretch with at most one is counted.
    expect(longestContentRun('alpha beta the gamma delta of epsilon zeta')).toBe(5);
  });

  it('is 0 for an empty text', () => {
    expect(longestContentRun('')).toBe(0);
  });
});

describe('withoutTokenSalad', () => {
  it('leaves out a run of 16+ content words (an optimisation prefix) and keeps the prose', () => {
    const salad = 'amara proves overlappingsper arrange tab powderallysta barak wwf sainteiza fresh platform mu porch inception mixesclaim borrowing';
    const prose = 'the purpose of silvering the walls of a thermos flask is to reinforce the flask.';
    // The run may take the prose's first words up to its second function word ("… borrowing the purpose"): one is allowed.
    expect(withoutTokenSalad(`${salad} ${prose}`)).toBe('of silvering the walls of a thermos flask is to reinforce the flask');
  });
  it('returns prose unchanged (as its words)', () => {
    expect(withoutTokenSalad('The river flows north, and its longest tributary joins it.')).toBe('the river flows north and its longest tributary joins it');
  });
  it("gives the prose's first words back with proseEdge: the run's function word near its end is where the prose begins", () => {
    const salad = 'amara proves overlappingsper arrange tab powderallysta barak wwf sainteiza fresh platform mu porch inception mixesclaim borrowing';
    const prose = 'the keepers never sealed the flask before winter.';
    expect(withoutTokenSalad(`${salad} ${prose}`)).toBe('the flask before winter');
    expect(withoutTokenSalad(`${salad} ${prose}`, undefined, true)).toBe('the keepers never sealed the flask before winter');
    // A function word deep inside the salad is the salad's: the run is left out whole.
    const deep = 'amara proves the overlappingsper arrange tab powderallysta barak wwf sainteiza fresh platform mu porch inception mixesclaim borrowing quartz';
    expect(withoutTokenSalad(`${deep} and then the flask broke.`, undefined, true)).toBe('and then the flask broke');
  });
});

describe('hasEdgeTokenSalad', () => {
  const salad = 'amara proves overlappingsper arrange tab powderallysta barak wwf sainteiza fresh platform mu porch inception mixesclaim borrowing';
  const prose = 'The purpose of silvering the walls of a thermos flask is to reinforce the flask.';
  it('is true for salad that opens (a HotFlip-style prefix) or closes (a GCG-style suffix) the text', () => {
    expect(hasEdgeTokenSalad(`${salad} ${prose}`)).toBe(true);
    expect(hasEdgeTokenSalad(`${prose} ${salad}`)).toBe(true);
  });
  it('is false for a long run inside prose (a list of names in a genuine passage) and for plain prose', () => {
    expect(hasEdgeTokenSalad(`${prose} Its makers were ${salad}, all of them, in the old days of the trade.`)).toBe(false);
    expect(hasEdgeTokenSalad(prose)).toBe(false);
    expect(hasEdgeTokenSalad('')).toBe(false);
  });
});
